"""Service benchmark (not a test): measures the read and write paths against the machine's own
limits and prints a table of throughput, p50/p99 latency and peak RSS, then the ratios of the
issue "Performance and resilience". Run it with `bash tests/perf/run.sh`.

Every row runs the real server, gateway and PostgreSQL on this machine, with the load tool on the
same cores: the figures are for comparing the service with its ceilings, measured the same way,
not absolute capacity. The ceilings:
  * database: pgbench with prepared statements running the room look-up GetRoom needs;
  * transport: grpc.health.v1.Health/Check, which answers from memory."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from stack import ROOT, Stack  # noqa: E402

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


def issue_body():
    """A POST /issues body whose request_id is new for every request of every row (a reused one
    would measure the idempotent replay, not a create)."""
    run = uuid.uuid4().hex[:12]
    return ('{"property_id":"BER1","room_number":"101","title":"bench {seq}","category":"HVAC",'
            f'"priority":"LOW","reported_by":"bench","request_id":"bench-{run}-{{seq}}"}}')


class Bench:
    def __init__(self, stack, seconds):
        self.stack, self.seconds = stack, seconds

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
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def grpc(self, method, data, concurrency, rate=None):
        return self.loadgen(["-grpc", self.stack.grpc_addr, "-method", method, "-data", data,
                             "-conns", str(min(concurrency, 4))], concurrency, rate)

    def http(self, path, concurrency, body=None, rate=None):
        args = ["-url", self.stack.base + path] + (["-body", body] if body else [])
        return self.loadgen(args, concurrency, rate)

    def pgbench(self, concurrency):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "room.sql")
            with open(script, "w") as f:
                f.write(ROOM_LOOKUP_SQL)
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
        return {"requests": len(latencies), "errors": 0, "rps": len(latencies) / self.seconds,
                "p50_ms": latencies[len(latencies) // 2], "p99_ms": latencies[int(len(latencies) * 0.99)]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5, help="measurement time per row")
    parser.add_argument("--concurrency", default="1,8,32")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]

    port = os.environ.get("HOTEL_PG_PORT", "54329")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_perf").start()
    bench = Bench(stack, args.seconds)
    rows = [
        ("pgbench room look-up (prepared)", "db", lambda c: bench.pgbench(c)),
        ("gRPC Health/Check", "grpc", lambda c: bench.grpc("/grpc.health.v1.Health/Check", "", c)),
        ("gRPC GetRoom", "grpc", lambda c: bench.grpc("/hotel.v1.RoomService/GetRoom", GET_ROOM_REQUEST, c)),
        ("REST GET /rooms/101?property_id=BER1", "rest", lambda c: bench.http("/rooms/101?property_id=BER1", c)),
        ("REST GET /rooms?floor=2&amenities=desk", "rest", lambda c: bench.http("/rooms?floor=2&amenities=desk", c)),
        ("REST POST /issues", "rest", lambda c: bench.http("/issues", c, body=issue_body())),
    ]
    peak = {}
    try:
        print(f"{'workload':40} {'conc':>4} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6} "
              f"{'server MB':>9} {'gateway MB':>10}", flush=True)
        for name, _, measure in rows:
            for c in levels:
                bench.peak_rss_reset()
                r = measure(c)
                peak[name] = max(peak.get(name, 0), r["rps"])
                print(f"{name:40} {c:4d} {r['rps']:9.0f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} {r['errors']:6d} "
                      f"{bench.peak_rss_mb(stack.server):9.1f} {bench.peak_rss_mb(stack.gateway):10.1f}", flush=True)
                if r["errors"]:
                    print(f"  first error: {r.get('first_error')}")

        half_grpc = bench.grpc("/hotel.v1.RoomService/GetRoom", GET_ROOM_REQUEST, 32,
                               rate=peak["gRPC GetRoom"] / 2)
        half_rest = bench.http("/rooms/101?property_id=BER1", 32,
                               rate=peak["REST GET /rooms/101?property_id=BER1"] / 2)
        print()
        print(f"{'ratio (peak throughput over the concurrencies)':58} {'value':>6} {'goal':>6}  met")
        ratios = [
            ("database ceiling: GetRoom / pgbench look-up", peak["gRPC GetRoom"] / peak["pgbench room look-up (prepared)"], 1.0),
            ("transport ceiling: GetRoom / Health/Check", peak["gRPC GetRoom"] / peak["gRPC Health/Check"], 0.7),
            ("gateway cost: REST GetRoom / gRPC GetRoom",
             peak["REST GET /rooms/101?property_id=BER1"] / peak["gRPC GetRoom"], 0.5),
        ]
        for label, value, goal in ratios:
            print(f"{label:58} {value:6.2f} {goal:6.1f}  {'yes' if value >= goal else 'NO'}")
        print()
        print(f"{'p99 at half the peak throughput':58} {'p99 ms':>6} {'goal':>6}  met")
        for label, r, goal in [(f"gRPC GetRoom at {half_grpc['rps']:.0f} req/s", half_grpc, 2.0),
                               (f"REST GetRoom at {half_rest['rps']:.0f} req/s", half_rest, 5.0)]:
            print(f"{label:58} {r['p99_ms']:6.2f} {goal:6.1f}  {'yes' if r['p99_ms'] <= goal else 'NO'}")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
