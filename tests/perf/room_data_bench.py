"""Room data management benchmark (not a test): hotel-admin import throughput for a generated
property, and how long another server process answers a stale room after a PATCH commits.

    bash tests/perf/run.sh room_data_bench.py [--rooms N] [--types T] [--rounds R]

Import: a fresh property of N rooms (one transaction), the same file again (a no-op: compared,
nothing written), and the file with every room's floor changed (N updates). The ceiling is one
INSERT ... SELECT of N rooms by psql in the same database (rolled back): what PostgreSQL alone
needs for the rows, without validation, diffing or a statement per row.

Staleness: two servers on one database, both with GetRoom's cache warm; a PATCH through the
first, then the second polled (REST, through its gateway) until it answers the new floor. The
figure is commit (PATCH answered) to the second answering new data; the poll itself costs
about one round trip, printed as the ceiling."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from stack import BIN, ROOT, Stack  # noqa: E402


def property_file(rooms, types, floor_shift=0):
    lines = ["property: {id: BENCH1, name: Benchmark House, time_zone: Europe/Paris, city: Paris, "
             "country_code: FR, enabled: false}", "room_types:"]
    for t in range(types):
        lines.append(f"  - {{code: T{t}, name: Type {t}, category: STANDARD, amenities: [wifi, desk], "
                     f"size_sqm: {18 + t}, max_guests: 2, bed_type: QUEEN}}")
    lines.append("rooms:")
    for r in range(rooms):
        floor = r // 25 + floor_shift
        lines.append(f"  - {{number: \"{1000 + r}\", floor: {floor}, room_type: T{r % types}, "
                     f"extra_amenities: [{'balcony' if r % 3 == 0 else ''}]}}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--types", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    _, cluster = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    stack = Stack(cluster, f"hotel_room_data_bench_{os.getpid()}").start()
    second = None
    try:
        env = dict(os.environ, DATABASE_URL=stack.db_url)
        env.pop("MIGRATION_DATABASE_URL", None)

        def admin(*a):
            t0 = time.perf_counter()
            out = subprocess.run([os.path.join(BIN, "hotel-admin"), *a], capture_output=True, text=True, env=env)
            assert out.returncode == 0, out.stderr
            return time.perf_counter() - t0, out.stdout

        records = 1 + args.types + args.rooms
        with tempfile.TemporaryDirectory() as tmp:
            fresh, shifted = os.path.join(tmp, "fresh.yaml"), os.path.join(tmp, "shifted.yaml")
            open(fresh, "w").write(property_file(args.rooms, args.types))
            open(shifted, "w").write(property_file(args.rooms, args.types, floor_shift=1))
            t0 = time.perf_counter()
            stack.psql("BEGIN; INSERT INTO rooms (property_id, number, floor, room_type_id) SELECT 'BER1', 'X' || i, "
                       "100 + i / 25, 'BER1-STD' FROM generate_series(1, %d) i; ROLLBACK" % args.rooms)
            ceiling = time.perf_counter() - t0
            print(f"import of a {args.rooms}-room property ({records} records); ceiling: psql INSERT ... SELECT "
                  f"of {args.rooms} rooms {ceiling * 1000:.0f} ms")
            print(f"{'round':34} {'wall ms':>8} {'records/s':>10} {'x ceiling':>10}")
            for name, path in (("new property", fresh), ("same file again (no-op)", fresh),
                               (f"{args.rooms} floors changed", shifted)):
                seconds, out = admin("import", path)
                print(f"{name:34} {seconds * 1000:8.0f} {records / seconds:10.0f} {seconds / ceiling:10.1f}"
                      f"   ({out.strip().splitlines()[-2]})")

        second = Stack(stack.cluster, stack.database)
        second.start_server()
        second.start_gateway()
        second.wait_ready()
        path = "/rooms/1000?property_id=BENCH1"
        staleness, polls = [], []
        for i in range(args.rounds):
            floor = 150 + i % 50
            assert second.get(path).status == 200 and second.get(path).status == 200  # cached
            assert stack.patch(path, {"floor": floor}).status == 200
            committed = time.perf_counter()
            n = 0
            while second.get(path).json["floor"] != floor:
                n += 1
            staleness.append((time.perf_counter() - committed) * 1000)
            polls.append(n)
        t0 = time.perf_counter()
        for _ in range(200):
            second.get(path)
        poll_ms = (time.perf_counter() - t0) / 200 * 1000
        staleness.sort()
        print(f"cross-process staleness over {args.rounds} PATCHes (commit to the other server answering the new "
              f"data): median {statistics.median(staleness):.2f} ms, p95 {staleness[int(len(staleness) * 0.95) - 1]:.2f} "
              f"ms, max {staleness[-1]:.2f} ms; stale answers per PATCH: median {statistics.median(polls):.0f}, "
              f"max {max(polls)}; ceiling: one cached GET through the gateway {poll_ms:.2f} ms")
    finally:
        if second:
            second.stop(keep_database=True)
        stack.stop()


if __name__ == "__main__":
    main()
