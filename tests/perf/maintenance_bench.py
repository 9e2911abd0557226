"""Maintenance benchmark (not a test): loads 1,000,000 issues and 100,000 schedules into a fresh
database and prints the latency of the dashboard and list endpoints through the real gateway.

    bash tests/perf/run.sh maintenance_bench.py [--issues N] [--schedules N] [--runs N]

Goals (issue "Maintenance"): median under 50 ms for /issues/stats and /summary, under 10 ms for
a list page, at 1M issues on the 2-core development machine."""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from stack import ROOT, Stack  # noqa: E402

LOAD = """
INSERT INTO issues (property_id, room_number, title, description, category, priority, status,
                    reported_by, assignee, created_at, updated_at, resolved_at, first_response_at, resolve_by)
SELECT r.property_id, r.number, 'Issue ' || g, 'generated for the benchmark',
       (ARRAY['PLUMBING','ELECTRICAL','HVAC','SAFETY','MECHANICAL','FURNITURE_FIXTURES',
              'APPLIANCE_ELECTRONICS','STRUCTURAL','HOUSEKEEPING','OTHER'])[1 + g % 10],
       (ARRAY['LOW','MEDIUM','HIGH','URGENT'])[1 + (g / 10) % 4],
       s.status, 'bench', CASE WHEN g % 3 = 0 THEN 'tech-' || g % 17 ELSE '' END,
       c.created_at, c.created_at,
       CASE WHEN s.status IN ('RESOLVED', 'CLOSED') THEN c.created_at + (g % 72) * interval '1 hour' END,
       CASE WHEN s.status <> 'OPEN' THEN c.created_at + (g % 90) * interval '1 minute' END,
       c.created_at + interval '3 days'
FROM generate_series(1, {issues}) AS g
CROSS JOIN LATERAL (SELECT now() - (g % 730) * interval '1 day' - (g % 1440) * interval '1 minute' AS created_at) c
CROSS JOIN LATERAL (SELECT (ARRAY['OPEN','IN_PROGRESS','ON_HOLD','RESOLVED','CLOSED','CLOSED','CLOSED','CANCELLED'])
                           [1 + (g / 40) % 8] AS status) s
JOIN (SELECT property_id, number, row_number() OVER (ORDER BY property_id, number) - 1 AS i FROM rooms) r
  ON r.i = g % (SELECT count(*) FROM rooms);

INSERT INTO maintenance_schedules (property_id, room_number, task, interval_unit, interval_count,
                                   starts_on, basis, next_due_on, active)
SELECT r.property_id, r.number, 'Task ' || g, (ARRAY['DAY','WEEK','MONTH','YEAR'])[1 + g % 4], 1 + g % 6,
       current_date - 400, (ARRAY['SCHEDULED_DATE','COMPLETED_DATE'])[1 + g % 2],
       current_date - 60 + g % 150, g % 10 <> 0
FROM generate_series(1, {schedules}) AS g
JOIN (SELECT property_id, number, row_number() OVER (ORDER BY property_id, number) - 1 AS i FROM rooms) r
  ON r.i = g % (SELECT count(*) FROM rooms);
ANALYZE;
"""

ENDPOINTS = [
    ("GET /issues/stats", "/issues/stats", 50),
    ("GET /issues/stats?property_id=BER1", "/issues/stats?property_id=BER1", 50),
    ("GET /issues/stats (last 30 days)", "/issues/stats?from={month_ago}", 20),
    ("GET /summary", "/summary", 50),
    ("GET /issues?status=OPEN&priority=HIGH (page 50)", "/issues?status=OPEN&priority=HIGH&page_size=50", 10),
    ("GET /issues (page 50)", "/issues?page_size=50", 10),
    ("GET /maintenance/schedules?overdue=true (page 50)", "/maintenance/schedules?overdue=true&page_size=50", 10),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issues", type=int, default=1_000_000)
    parser.add_argument("--schedules", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the database hotel_bench for EXPLAIN")
    args = parser.parse_args()

    port = os.environ.get("HOTEL_PG_PORT", "54329")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_bench").start()
    try:
        started = time.time()
        stack.psql(LOAD.format(issues=args.issues, schedules=args.schedules))
        # The bulk load appended a million rollup deltas; the server folds them in the background.
        # The figures below are for the steady state of a few deltas, so wait for the fold.
        while int(stack.psql("SELECT count(*) FROM issue_rollup_deltas")) > 1000:
            time.sleep(1)
        print(f"rollup deltas folded {time.time() - started:.0f} s after the load began")
        # The steady state autovacuum reaches: visibility maps set, so covering indexes are read alone.
        stack.psql("VACUUM (ANALYZE) issues, maintenance_schedules, issue_rollup_deltas, schedule_rollup_deltas,"
                   " issue_counters, issue_day_counters, issue_duration_buckets, issue_day_duration_buckets,"
                   " open_issue_due_days, schedule_due_days")
        print(f"loaded {stack.psql('SELECT count(*) FROM issues')} issues and "
              f"{stack.psql('SELECT count(*) FROM maintenance_schedules')} schedules in {time.time() - started:.0f} s")
        print(f"{'endpoint':52} {'median ms':>10} {'p95 ms':>8} {'goal ms':>8}  ok")
        month_ago = stack.psql("SELECT to_char(now() - interval '30 days', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
        for name, path, goal in ENDPOINTS:
            path = path.format(month_ago=month_ago)
            for _ in range(3):
                assert stack.get(path, timeout=60).status == 200, stack.get(path, timeout=60)
            samples = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                resp = stack.get(path, timeout=60)
                samples.append((time.perf_counter() - t0) * 1000)
                assert resp.status == 200, resp
            samples.sort()
            median = statistics.median(samples)
            p95 = samples[int(len(samples) * 0.95) - 1]
            print(f"{name:52} {median:10.2f} {p95:8.2f} {goal:8d}  {'yes' if median < goal else 'NO'}")
        # One write with its timeline entry and the rollup triggers, as a client sees it.
        samples = []
        for n in range(args.runs):
            t0 = time.perf_counter()
            resp = stack.post("/issues", {"property_id": "BER1", "room_number": "101", "title": f"bench write {n}",
                                          "category": "HVAC", "priority": "LOW", "reported_by": "bench"})
            samples.append((time.perf_counter() - t0) * 1000)
            assert resp.status == 201, resp
        print(f"{'POST /issues (one write)':52} {statistics.median(samples):10.2f} "
              f"{sorted(samples)[int(len(samples) * 0.95) - 1]:8.2f} {'-':>8}")
    finally:
        stack.stop(keep_database=args.keep)


if __name__ == "__main__":
    main()
