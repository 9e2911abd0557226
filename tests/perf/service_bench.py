"""Service benchmark (not a test): measures the read and write paths against the machine's own
limits and prints a table of throughput, p50/p99 latency and peak RSS, then the ratios of the
issue "Performance and resilience". Run it with `bash tests/perf/run.sh`.

Every row runs the real server, gateway and PostgreSQL on this machine, with the load tool on the
same cores: the figures are for comparing the service with its ceilings, measured the same way,
not absolute capacity. The ceilings:
  * database: pgbench with prepared statements running the room look-up GetRoom needs;
  * transport: grpc.health.v1.Health/Check, which answers from memory;
  * write: pgbench writing the durable rows of an issue create (the issue with all its indexes,
    constraints and foreign keys, plus its CREATED event, one transaction, synchronous commit)
    into copies of the two tables that have no rollup triggers."""
import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from stack import ROOT, Stack  # noqa: E402
sys.path.insert(0, os.path.dirname(__file__))
from cpu import CpuWindow  # noqa: E402

LOADGEN = os.path.join(ROOT, "build", "bin", "loadgen")
PGBENCH = os.path.join(subprocess.run("ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1", shell=True,
                                      capture_output=True, text=True).stdout.strip(), "pgbench")
# GetRoomRequest{property_id: "BER1", number: "101"} in protobuf wire format.
GET_ROOM_REQUEST = "0a04424552311203313031"
# The statement RoomRepository::GetRoom runs first (rooms/room_filters.cc, kRoomColumns).
ROOM_LOOKUP_SQL = """SELECT r.property_id, r.number, r.floor, r.room_type_id, t.category,
 t.amenities || r.extra_amenities, r.out_of_order, r.out_of_order_reason,
 (extract(epoch FROM r.out_of_order_since) * 1000000)::int8, room_equipment_count(r.property_id, r.number)
 FROM rooms r JOIN room_types t ON t.id = r.room_type_id WHERE r.property_id = 'BER1' AND r.number = '101';
"""


# The same durable rows as POST /issues, without the rollup triggers: copies of issues and
# issue_events with the same columns, defaults, checks, indexes and foreign keys.
WRITE_CEILING_SETUP = """
CREATE TABLE IF NOT EXISTS ceiling_issues (LIKE issues INCLUDING ALL);
CREATE TABLE IF NOT EXISTS ceiling_issue_events (LIKE issue_events INCLUDING ALL);
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'ceiling_issues_room') THEN
    ALTER TABLE ceiling_issues ADD CONSTRAINT ceiling_issues_property FOREIGN KEY (property_id) REFERENCES properties (id),
      ADD CONSTRAINT ceiling_issues_room FOREIGN KEY (property_id, room_number) REFERENCES rooms (property_id, number),
      ADD CONSTRAINT ceiling_issues_equipment FOREIGN KEY (equipment_id) REFERENCES equipment (id);
    ALTER TABLE ceiling_issue_events ADD FOREIGN KEY (issue_id) REFERENCES ceiling_issues (id);
  END IF;
END $$;
"""
# One statement, as the server's create: the issue and its CREATED event.
WRITE_CEILING_SQL = """WITH i AS (INSERT INTO ceiling_issues (property_id, room_number, title, category, priority,
 reported_by, updated_by, resolve_by, request_id, request_hash) VALUES ('BER1', '101', 'bench', 'HVAC', 'LOW',
 'bench', 'bench', now() + 259200 * interval '1 second', gen_random_uuid()::text, md5(random()::text)) RETURNING id)
INSERT INTO ceiling_issue_events (issue_id, actor, type, to_value, note)
SELECT id, 'bench', 'CREATED', 'OPEN', 'bench' FROM i;
"""
MIXED_ROOMS = ["201", "202", "203", "204"]
# Rows made for the write rows that change each row once: open issues, overdue schedules.
OPEN_ISSUES_SQL = """INSERT INTO issues (property_id, room_number, title, category, priority, reported_by, resolve_by)
SELECT 'BER1', (ARRAY['301','302','303','304'])[1 + g %% 4], 'patch %(tag)s ' || g, 'HVAC', 'LOW', 'bench',
       now() + interval '3 days' FROM generate_series(1, %(n)d) g RETURNING id"""
SCHEDULES_SQL = """INSERT INTO maintenance_schedules (property_id, room_number, task, interval_unit, interval_count,
 starts_on, basis, next_due_on) SELECT 'BER1', (ARRAY['401','402','403','404'])[1 + g %% 4], 'bench %(tag)s ' || g,
 'WEEK', 1, current_date - 14, 'SCHEDULED_DATE', current_date - 14 FROM generate_series(1, %(n)d) g RETURNING id"""


def issue_body():
    """A POST /issues body whose request_id is new for every request of every row (a reused one
    would measure the idempotent replay, not a create)."""
    run = uuid.uuid4().hex[:12]
    return ('{"property_id":"BER1","room_number":"101","title":"bench {seq}","category":"HVAC",'
            f'"priority":"LOW","reported_by":"bench","request_id":"bench-{run}-{{seq}}"}}')


class Bench:
    def __init__(self, stack, seconds, pg_data):
        self.stack, self.seconds, self.pg_data = stack, seconds, pg_data

    def measured(self, run):
        """run()'s result with the CPU per request of each process while it ran (cpu_us)."""
        cpu = CpuWindow(self.stack.server.pid, self.stack.gateway.pid, self.pg_data).start()
        result = run()
        result["cpu_us"] = cpu.per_request(result["requests"])
        return result

    def peak_rss_reset(self):
        for proc in (self.stack.server, self.stack.gateway):
            with open(f"/proc/{proc.pid}/clear_refs", "w") as f:
                f.write("5")  # resets VmHWM, so each row reports its own peak

    def peak_rss_mb(self, proc):
        with open(f"/proc/{proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def loadgen(self, args, concurrency, rate=None):
        cmd = [LOADGEN, "-c", str(concurrency), "-d", f"{self.seconds}s", *args]
        if rate:
            cmd += ["-rate", f"{rate:.0f}"]
        return self.measured(lambda: json.loads(
            subprocess.run(cmd, check=True, capture_output=True, text=True).stdout))

    def grpc(self, method, data, concurrency, rate=None):
        return self.loadgen(["-grpc", self.stack.grpc_addr, "-method", method, "-data", data,
                             "-conns", str(min(concurrency, 4))], concurrency, rate)

    def http(self, path, concurrency, body=None, rate=None):
        args = ["-url", self.stack.base + path] + (["-body", body] if body else [])
        return self.loadgen(args, concurrency, rate)

    def fresh_ids(self, sql, count):
        """A file of ids of `count` rows made by sql (with %(n)d rows), each to be written once."""
        ids = self.stack.psql(sql % {"n": count, "tag": uuid.uuid4().hex[:8]}).split()
        f = tempfile.NamedTemporaryFile("w", prefix="ids-", delete=False)
        f.write("\n".join(ids))
        f.close()
        return f.name

    def http_each_once(self, path, body, sql, concurrency, rate=None):
        """Writes to rows made for the purpose, each once (a status change, a completion)."""
        ids = self.fresh_ids(sql, 6000 if concurrency == 1 else 16000)
        try:
            args = ["-url", self.stack.base + path, "-X", "PATCH" if "issues" in path else "POST",
                    "-body", body, "-ids", ids]
            return self.loadgen(args, concurrency, rate)
        finally:
            os.unlink(ids)

    def mixed(self, workers):
        return self.measured(lambda: self._mixed(workers))

    def _mixed(self, workers):
        """The write-path issue's mixed workload: each worker creates issues on four rooms of one
        property (half of them taking the room out of order) and moves its own issues through
        allowed transitions with If-Match. Python threads, one keep-alive connection each."""
        host, port = urllib.parse.urlsplit(self.stack.base).netloc.split(":")
        deadline = time.time() + self.seconds
        latencies, errors, first_error, lock = [], [0, 0], [None], threading.Lock()

        def call(conn, method, path, body, headers):
            started = time.time()
            conn.request(method, "/api/v1" + path, body=json.dumps(body), headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            with lock:
                if resp.status >= 300:
                    errors[0] += 1
                    errors[1] += resp.status >= 500
                    first_error[0] = first_error[0] or f"{method} {path}: {resp.status} {data[:200]!r}"
                else:
                    latencies.append((time.time() - started) * 1000)
            return resp.status, data

        def worker(seed):
            rng, mine = random.Random(seed), []
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            headers = {"Content-Type": "application/json"}
            while time.time() < deadline:
                if rng.random() < 0.5 or not mine:
                    status, data = call(conn, "POST", "/issues", {
                        "property_id": "BER1", "room_number": rng.choice(MIXED_ROOMS), "title": "mixed",
                        "category": "PLUMBING", "reported_by": "bench", "request_id": uuid.uuid4().hex,
                        "take_room_out_of_order": rng.random() < 0.5}, headers)
                    if status == 201:
                        mine.append(json.loads(data))
                    continue
                issue = rng.choice(mine)
                if not issue["allowed_transitions"]:
                    mine.remove(issue)
                    continue
                target = rng.choice(issue["allowed_transitions"])
                body = {"status": target, **({"reason": "parts"} if target in ("ON_HOLD", "CANCELLED") else {})}
                status, data = call(conn, "PATCH", f"/issues/{issue['id']}", body,
                                    {**headers, "If-Match": issue["etag"]})
                if status == 200:
                    mine[mine.index(issue)] = json.loads(data)

        threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(workers)]
        started = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.time() - started
        latencies.sort()
        n = len(latencies)
        return {"requests": n + errors[0], "errors": errors[0], "errors_5xx": errors[1], "rps": n / elapsed,
                "p50_ms": latencies[n // 2] if n else 0, "p99_ms": latencies[int(n * 0.99)] if n else 0,
                "first_error": first_error[0]}

    def pgbench(self, concurrency, sql=ROOM_LOOKUP_SQL):
        return self.measured(lambda: self._pgbench(concurrency, sql))

    def _pgbench(self, concurrency, sql):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "script.sql")
            with open(script, "w") as f:
                f.write(sql)
            subprocess.run([PGBENCH, "-n", "-M", "prepared", "-f", script, "-c", str(concurrency),
                            "-j", str(min(concurrency, 2)), "-T", str(self.seconds), "-l",
                            "--log-prefix", os.path.join(tmp, "log"), self.stack.db_url],
                           check=True, capture_output=True, text=True, cwd=tmp)
            latencies = []
            for name in os.listdir(tmp):
                if name.startswith("log"):
                    with open(os.path.join(tmp, name)) as f:
                        latencies += [int(line.split()[2]) / 1000 for line in f]
        latencies.sort()
        return {"requests": len(latencies), "errors": 0, "errors_5xx": 0, "rps": len(latencies) / self.seconds,
                "p50_ms": latencies[len(latencies) // 2], "p99_ms": latencies[int(len(latencies) * 0.99)]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5, help="measurement time per row")
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--server-binary", help="another hotel-server build to measure (e.g. the synchronous one)")
    parser.add_argument("--rows", help="only the workloads whose names contain one of these (comma-separated), "
                                       "without the mixed writers; the ratios need the rows they compare")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]

    port = os.environ.get("HOTEL_PG_PORT", "54329")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_perf")
    rows = [
        ("pgbench room look-up (prepared)", "db", lambda c: bench.pgbench(c)),
        ("gRPC Health/Check", "grpc", lambda c: bench.grpc("/grpc.health.v1.Health/Check", "", c)),
        ("gRPC GetRoom", "grpc", lambda c: bench.grpc("/hotel.v1.RoomService/GetRoom", GET_ROOM_REQUEST, c)),
        ("REST GET /rooms/101?property_id=BER1", "rest", lambda c: bench.http("/rooms/101?property_id=BER1", c)),
        ("REST GET /rooms?floor=2&amenities=desk", "rest", lambda c: bench.http("/rooms?floor=2&amenities=desk", c)),
        ("pgbench issue + CREATED event (write)", "db", lambda c: bench.pgbench(c, WRITE_CEILING_SQL)),
        ("REST POST /issues", "rest", lambda c: bench.http("/issues", c, body=issue_body())),
        ("REST PATCH /issues/{id} status", "rest", lambda c: bench.http_each_once(
            "/issues/{id}", '{"status":"IN_PROGRESS"}', OPEN_ISSUES_SQL, c)),
        ("REST POST /maintenance/schedules/{id} COMPLETE", "rest", lambda c: bench.http_each_once(
            "/maintenance/schedules/{id}", '{"action":"COMPLETE","completed_by":"bench"}', SCHEDULES_SQL, c)),
    ]
    if args.rows:
        rows = [row for row in rows if any(part in row[0] for part in args.rows.split(","))]
    best, clean, memory = {}, {}, {"server": 0.0, "gateway": 0.0}

    def report(name, c, r):
        """Prints a row; keeps each workload's peak row, its peak row without errors (CPU per
        request of a row with refusals counts the cheap refusals too) and the most memory."""
        if r["rps"] > best.get(name, {"rps": -1})["rps"]:
            best[name] = r
        if not r["errors"] and r["rps"] > clean.get(name, {"rps": -1})["rps"]:
            clean[name] = r
        mb = {"server": bench.peak_rss_mb(stack.server), "gateway": bench.peak_rss_mb(stack.gateway)}
        for proc in memory:
            memory[proc] = max(memory[proc], mb[proc])
        cpu = r["cpu_us"]
        print(f"{name:40} {c:4d} {r['rps']:9.0f} {cpu['server']:7.0f} {cpu['gateway']:7.0f} {cpu['postgres']:7.0f} "
              f"{cpu['loadgen']:7.0f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} {r['errors']:6d} "
              f"{mb['server']:9.1f} {mb['gateway']:10.1f}", flush=True)
        if r["errors"]:
            print(f"  first error: {r.get('first_error')}" +
                  (f" ({r['errors_5xx']} of them 5xx)" if "errors_5xx" in r else ""))

    try:
        stack.create_database()
        stack.migrate()
        stack.start_server(binary=args.server_binary)
        stack.start_gateway()
        stack.wait_ready()
        stack.psql(WRITE_CEILING_SETUP)
        pg_dir = os.environ.get("HOTEL_PG_DIR", os.path.join(ROOT, ".local"))
        bench = Bench(stack, args.seconds, os.path.join(pg_dir, "pgdata"))
        print("CPU: microseconds of user + system CPU per request (/proc) of the server, the gateway, every "
              "PostgreSQL process and the load generator (loadgen, pgbench or the Python workers)")
        print(f"{'workload':40} {'conc':>4} {'req/s':>9} {'srv µs':>7} {'gw µs':>7} {'pg µs':>7} {'load µs':>7} "
              f"{'p50 ms':>8} {'p99 ms':>8} {'errors':>6} {'server MB':>9} {'gateway MB':>10}", flush=True)
        for name, _, measure in rows:
            for c in levels:
                bench.peak_rss_reset()
                report(name, c, measure(c))

        mixed = {}
        for workers in () if args.rows else (16, 32):
            bench.peak_rss_reset()
            report("mixed issue writes (Python workers)", workers, bench.mixed(workers))
            mixed[workers] = best.pop("mixed issue writes (Python workers)")
            clean.pop("mixed issue writes (Python workers)", None)
        peak = {name: r["rps"] for name, r in best.items()}
        compared = ["pgbench room look-up (prepared)", "gRPC Health/Check", "gRPC GetRoom",
                    "REST GET /rooms/101?property_id=BER1", "pgbench issue + CREATED event (write)", "REST POST /issues"]
        if any(name not in clean for name in compared):
            print(f"\n(no ratios: they compare the rows {', '.join(compared)}, each with a row without errors)")
            return
        half_post = bench.http("/issues", 32, body=issue_body(), rate=peak["REST POST /issues"] / 2)
        half_grpc = bench.grpc("/hotel.v1.RoomService/GetRoom", GET_ROOM_REQUEST, 32,
                               rate=peak["gRPC GetRoom"] / 2)
        half_rest = bench.http("/rooms/101?property_id=BER1", 32,
                               rate=peak["REST GET /rooms/101?property_id=BER1"] / 2)
        print()
        print(f"{'ratio (peak throughput over the concurrencies)':58} {'value':>6} {'goal':>6}  met")
        ratios = [
            ("database ceiling: GetRoom / pgbench look-up", peak["gRPC GetRoom"] / peak["pgbench room look-up (prepared)"], 2.0),
            ("transport ceiling: GetRoom / Health/Check", peak["gRPC GetRoom"] / peak["gRPC Health/Check"], 0.9),
            ("gateway cost: REST GetRoom / gRPC GetRoom",
             peak["REST GET /rooms/101?property_id=BER1"] / peak["gRPC GetRoom"], 0.5),
            ("write ceiling: POST /issues / pgbench issue + event",
             peak["REST POST /issues"] / peak["pgbench issue + CREATED event (write)"], 0.5),
        ]
        for label, value, goal in ratios:
            print(f"{label:58} {value:6.2f} {goal:6.1f}  {'yes' if value >= goal else 'NO'}")
        print()
        print(f"{'p99 at half the peak throughput':58} {'p99 ms':>6} {'goal':>6}  met")
        for label, r, goal in [(f"gRPC GetRoom at {half_grpc['rps']:.0f} req/s", half_grpc, 2.0),
                               (f"REST GetRoom at {half_rest['rps']:.0f} req/s", half_rest, 5.0),
                               (f"REST POST /issues at {half_post['rps']:.0f} req/s", half_post, 20.0)]:
            print(f"{label:58} {r['p99_ms']:6.2f} {goal:6.1f}  {'yes' if r['p99_ms'] <= goal else 'NO'}")
        print()
        # Each workload's CPU per request at its peak row without errors.
        health, get = clean["gRPC Health/Check"]["cpu_us"], clean["gRPC GetRoom"]["cpu_us"]
        rest, post = clean["REST GET /rooms/101?property_id=BER1"]["cpu_us"], clean["REST POST /issues"]["cpu_us"]
        print(f"{'CPU per request (at each peak row without errors)':58} {'value':>6} {'goal':>6}  met")
        for label, value, goal in [
            (f"GetRoom / Health/Check, server ({get['server']:.0f} / {health['server']:.0f} µs)",
             get["server"] / health["server"], 1.1),
            (f"REST GetRoom gateway / server ({rest['gateway']:.0f} / {rest['server']:.0f} µs)",
             rest["gateway"] / rest["server"], 1.5),
            (f"POST /issues server + gateway / PostgreSQL ({post['server'] + post['gateway']:.0f} / "
             f"{post['postgres']:.0f} µs)", (post["server"] + post["gateway"]) / post["postgres"], 1.0),
        ]:
            print(f"{label:58} {value:6.2f} {goal:6.1f}  {'yes' if value <= goal else 'NO'}")
        print()
        print(f"{'peak RSS over every row':58} {'MB':>6} {'goal':>6}  met")
        for proc, goal in (("server", 40), ("gateway", 30)):
            print(f"{proc:58} {memory[proc]:6.1f} {goal:6d}  {'yes' if memory[proc] <= goal else 'NO'}")
        print()
        print(f"{'errors of the mixed issue writes':58} {'errors':>6} {'goal':>6}  met")
        for workers, r in mixed.items():
            label = f"{workers} workers, {r['requests']} requests"
            print(f"{label:58} {r['errors']:6d} {0:6d}  {'yes' if r['errors'] == 0 else 'NO'}")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
