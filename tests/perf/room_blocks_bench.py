"""Room blocks benchmark (not a test): a property of 2,000 rooms with 50,000 blocks over two years.

    bash tests/perf/run.sh room_blocks_bench.py [--rooms N] [--blocks B] [--rounds R] [--keep-database]

Prints, through the real gateway: GET /properties/{id}/availability for 30 and 366 days (p50, p95;
goals 20 ms and 100 ms p50), the room list filtered by a 7-day available_from/available_to range
against the same list without it (ratio; goal at most 1.5), and the daily pass
(apply_room_block_transitions) for a date on which 10,000 blocks start or end (goal 1 s). The
ceiling printed beside the reads is GET /health/live, one round trip through the gateway that
reads nothing. Blocks are written with one INSERT ... SELECT (the fixture, not the subject)."""
import argparse
import os
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from stack import PG_DIR, PG_PORT, Stack  # noqa: E402

PROPERTY = "BLKB1"


def timed_get(stack, path, rounds):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        with urllib.request.urlopen(stack.base + path, timeout=60) as resp:
            resp.read()
            assert resp.status == 200, path
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--blocks", type=int, default=50000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--keep-database", action="store_true",
                        help="leave the database in the cluster afterwards (for EXPLAIN ANALYZE by hand)")
    args = parser.parse_args()
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(cluster, f"hotel_room_blocks_bench_{os.getpid()}").start()
    try:
        stack.psql(f"""
          INSERT INTO properties (id, name, time_zone, city, country_code) VALUES
            ('{PROPERTY}', 'Bench', 'Europe/Paris', 'Paris', 'FR');
          INSERT INTO room_types (id, property_id, code, name, category, size_sqm, max_guests, bed_type)
            SELECT '{PROPERTY}-T' || t, '{PROPERTY}', 'T' || t, 'Type ' || t, 'STANDARD', 20, 2, 'DOUBLE'
            FROM generate_series(0, 7) t;
          INSERT INTO rooms (property_id, number, floor, room_type_id)
            SELECT '{PROPERTY}', (1000 + r)::text, r / 50, '{PROPERTY}-T' || (r % 8)
            FROM generate_series(0, {args.rooms - 1}) r;
          -- Per room, blocks one after another over two years from today (1 to 4 nights, gaps of
          -- 2 to 20 days), every fifth OUT_OF_SERVICE.
          INSERT INTO room_blocks (property_id, room_number, type, start_date, end_date, reason)
            SELECT '{PROPERTY}', (1000 + (n % {args.rooms}))::text,
                   CASE WHEN n % 5 = 0 THEN 'OUT_OF_SERVICE' ELSE 'OUT_OF_ORDER' END,
                   current_date + (n / {args.rooms}) * 29 + (n % 7),
                   current_date + (n / {args.rooms}) * 29 + (n % 7) + 1 + (n % 4), 'bench'
            FROM generate_series(0, {args.blocks - 1}) n;
          ANALYZE room_blocks; ANALYZE rooms;""")
        today = stack.psql("SELECT current_date")
        live = timed_get(stack, "/health/live", args.rounds)
        print(f"blocks: {stack.psql('SELECT count(*) FROM room_blocks')} on {args.rooms} rooms, "
              f"{stack.psql('SELECT min(start_date) || chr(32) || max(end_date) FROM room_blocks')}")
        print(f"ceiling GET /health/live: p50 {live[0]:.2f} ms")
        for days in (30, 366):
            to = stack.psql(f"SELECT current_date + {days}")
            p50, p95 = timed_get(stack, f"/properties/{PROPERTY}/availability?from_date={today}&to_date={to}",
                                 args.rounds)
            goal = 20 if days == 30 else 100
            print(f"availability {days} days: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
                  f"(goal p50 <= {goal} ms: {p50 / goal:.2f} of it; {p50 / live[0]:.1f} x the ceiling)")
        start = stack.psql("SELECT current_date + 60")
        end = stack.psql("SELECT current_date + 67")
        plain, _ = timed_get(stack, f"/rooms?property_id={PROPERTY}&page_size=500", args.rounds)
        filtered, _ = timed_get(stack, f"/rooms?property_id={PROPERTY}&page_size=500&available_from={start}"
                                       f"&available_to={end}", args.rounds)
        print(f"room list, 500 rooms: without filter p50 {plain:.1f} ms, with a 7-day availability filter "
              f"p50 {filtered:.1f} ms: ratio {filtered / plain:.2f} (goal <= 1.5)")
        # The daily pass on a date (day 400, free of the blocks above) with 10,000 block starts and
        # ends: per room an OUT_OF_ORDER block that ends that day (even rooms) or starts it (odd
        # rooms), so every room flips, and four OUT_OF_SERVICE blocks starting or ending that day.
        stack.psql(f"""
          INSERT INTO room_blocks (property_id, room_number, type, start_date, end_date, reason)
            SELECT '{PROPERTY}', (1000 + r)::text, 'OUT_OF_ORDER', current_date + 397 + (r % 2) * 3,
                   current_date + 400 + (r % 2) * 3, 'pass'
            FROM generate_series(0, {args.rooms - 1}) r
            UNION ALL
            SELECT '{PROPERTY}', (1000 + r)::text, 'OUT_OF_SERVICE', current_date + 398 + (k % 2) * 2,
                   current_date + 400 + (k % 2) * 2, 'pass'
            FROM generate_series(0, {args.rooms - 1}) r, generate_series(0, 3) k""")
        transitions = stack.psql(f"""SELECT count(*) FROM room_blocks WHERE property_id = '{PROPERTY}'
            AND (start_date = current_date + 400 OR end_date = current_date + 400)""")
        stack.psql(f"SELECT apply_room_block_transitions(now() + interval '399 days')")
        t0 = time.perf_counter()
        changed = stack.psql(f"SELECT apply_room_block_transitions(now() + interval '400 days')")
        took = time.perf_counter() - t0
        again = stack.psql(f"SELECT apply_room_block_transitions(now() + interval '400 days')")
        print(f"daily pass: {took * 1000:.0f} ms for a date with {transitions} block starts and ends on "
              f"{args.rooms} rooms ({changed} rooms changed; run again: {again}); goal 1 s for 10,000 transitions")
    finally:
        stack.stop(keep_database=args.keep_database)
        if args.keep_database:
            print(f"database kept: {stack.owner_url}")


if __name__ == "__main__":
    main()
