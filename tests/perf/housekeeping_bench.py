"""Housekeeping benchmark (not a test): a property of 2,000 rooms on 20 floors.

    bash tests/perf/run.sh housekeeping_bench.py [--rooms N] [--history H] [--rounds R]

Prints, through the real gateway (issue 49's goals): a bulk set of 1,000 rooms in one call
(POST /properties/{id}/rooms:setHousekeeping, p50; goal 100 ms), the overview with per-floor counts
(GET /properties/{id}/housekeeping, p50; goal 20 ms), the room list filtered by
condition=DIRTY&occupancy=VACANT against the same list unfiltered (ratio; goal at most 1.5), and
the room list ready=true against the same list unfiltered (ratio; goal, issue 58: at most 1.5),
the first page of the history of a room with 10,000 entries (p50; goal 10 ms), and the day turn over
every room, each occupied and CLEAN so each goes DIRTY with its history entry and feed change (the
database function the daily pass calls, timed inside the database; goal, issue 58: 500 ms). The ceiling printed
beside them is GET /health/live, one round trip through the gateway that reads nothing. The
history is written with one UPDATE per entry in a DO block (the fixture, not the subject)."""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from stack import PG_DIR, PG_PORT, Stack  # noqa: E402

PROPERTY = "HKB1"


def timed(stack, path, rounds, body_for=None):
    """p50 and p95 in ms of rounds requests: GETs, or POSTs of body_for(i)."""
    times = []
    for i in range(rounds):
        data = json.dumps(body_for(i)).encode() if body_for else None
        request = urllib.request.Request(stack.base + path, data=data, method="POST" if data else "GET",
                                         headers={"Content-Type": "application/json"})
        t0 = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as resp:
            resp.read()
            assert resp.status == 200, path
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[max(int(len(times) * 0.95) - 1, 0)]


def day_turn(stack, rounds):
    """The day turn over every room of PROPERTY, all occupied and CLEAN: p50 of rounds, in the database."""
    times = []
    for _ in range(max(rounds // 4, 3)):
        stack.psql(f"""
          UPDATE rooms SET housekeeping_occupancy = 'OCCUPIED', housekeeping_condition = 'CLEAN',
                           housekeeping_service_request = 'NONE' WHERE property_id = '{PROPERTY}';
          INSERT INTO housekeeping_day_turns (property_id, applied_through) VALUES ('{PROPERTY}', '2000-01-01')
            ON CONFLICT (property_id) DO UPDATE SET applied_through = '2000-01-01';""")
        out = stack.psql("""
          CREATE TEMP TABLE turn (ms float8, rooms int8);
          DO $$ DECLARE t0 timestamptz := clock_timestamp(); n bigint; BEGIN
            n := apply_housekeeping_day_turn(now());
            INSERT INTO turn VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000, n);
          END $$;
          SELECT ms || ' ' || rooms FROM turn;""")
        ms, turned = out.split()
        times.append(float(ms))
    return (f"day turn over {turned} rooms (each DIRTY, a history entry and a feed change): p50 "
            f"{statistics.median(times):.0f} ms of {len(times)} (goal <= 500 ms: {statistics.median(times) / 500:.2f} "
            f"of it)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--history", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    # The server's own daily pass waits an hour: the bench turns the date itself.
    stack = Stack(cluster, f"hotel_housekeeping_bench_{os.getpid()}").start(
        server_args=["--block-transition-interval=1h"])
    try:
        floors = 20
        stack.psql(f"""
          INSERT INTO properties (id, name, time_zone, city, country_code) VALUES
            ('{PROPERTY}', 'Bench', 'Europe/Paris', 'Paris', 'FR');
          INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type)
            SELECT '{PROPERTY}-T' || t, '{PROPERTY}', 'T' || t, 'Type ' || t, 'STANDARD', 20, 2, 'DOUBLE'
            FROM generate_series(0, 7) t;
          INSERT INTO rooms (property_id, number, floor, room_type_id, housekeeping_occupancy)
            SELECT '{PROPERTY}', (1000 + r)::text, r % {floors}, '{PROPERTY}-T' || (r % 8),
                   CASE WHEN r % 3 = 0 THEN 'VACANT' WHEN r % 3 = 1 THEN 'OCCUPIED' ELSE 'UNKNOWN' END
            FROM generate_series(0, {args.rooms - 1}) r;
          -- Every sixth room vacant and inspected, so ready=true has rooms to answer.
          UPDATE rooms SET housekeeping_condition = 'INSPECTED'
            WHERE property_id = '{PROPERTY}' AND number::int % 6 = 1;  -- odd: the bulk set writes the even ones
          DO $$ BEGIN
            FOR i IN 1..{args.history} LOOP
              UPDATE rooms SET housekeeping_condition = CASE WHEN i % 2 = 0 THEN 'DIRTY' ELSE 'CLEAN' END,
                               housekeeping_reason = 'bench ' || i, housekeeping_updated_at = clock_timestamp()
              WHERE property_id = '{PROPERTY}' AND number = '1000';
            END LOOP;
          END $$;
          ANALYZE rooms; ANALYZE room_housekeeping_history;""")
        live = timed(stack, "/health/live", args.rounds)
        print(f"housekeeping: {args.rooms} rooms on {floors} floors; room 1000 has "
              f"{stack.psql('SELECT count(*) FROM room_housekeeping_history')} history entries")
        print(f"ceiling GET /health/live: p50 {live[0]:.2f} ms")

        def report(name, figures, goal):
            p50, p95 = figures
            print(f"{name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms (goal p50 <= {goal} ms: {p50 / goal:.2f} of it; "
                  f"{p50 / live[0]:.1f} x the ceiling)")

        half = [str(1000 + r) for r in range(0, args.rooms, 2)][:1000]
        report(f"bulk set of {len(half)} rooms",
               timed(stack, f"/properties/{PROPERTY}/rooms:setHousekeeping", args.rounds,
                     lambda i: {"room_numbers": half, "condition": "DIRTY" if i % 2 else "CLEAN",
                                "reason": "bench", "updated_by": "bench"}), 100)
        report("overview (per floor, per room type, work list)",
               timed(stack, f"/properties/{PROPERTY}/housekeeping", args.rounds), 20)
        plain, _ = timed(stack, f"/rooms?property_id={PROPERTY}&page_size=500", args.rounds)
        filtered, _ = timed(stack, f"/rooms?property_id={PROPERTY}&page_size=500&condition=DIRTY&occupancy=VACANT",
                            args.rounds)
        print(f"room list, 500 a page: unfiltered p50 {plain:.1f} ms, condition=DIRTY&occupancy=VACANT p50 "
              f"{filtered:.1f} ms (ratio {filtered / plain:.2f}; goal <= 1.5)")
        ready, _ = timed(stack, f"/rooms?property_id={PROPERTY}&page_size=500&ready=true", args.rounds)
        print(f"room list, 500 a page: ready=true p50 {ready:.1f} ms (ratio {ready / plain:.2f} to unfiltered; "
              f"goal <= 1.5)")
        report(f"history first page (room of {args.history} entries)",
               timed(stack, f"/rooms/1000/housekeeping/history?property_id={PROPERTY}", args.rounds), 10)
        print(day_turn(stack, args.rounds))
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
