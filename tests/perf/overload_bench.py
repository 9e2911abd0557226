"""Overload benchmark (not a test): how much of its capacity the service keeps when offered more
than it can serve. Open-loop load (tests/perf/loadgen -open: arrivals at a fixed rate, each
caller with a 1 s timeout, whatever the service answers) against the real server, gateway and
PostgreSQL on this machine.

For each target it first finds C, the highest rate served with >= 99.9 % success, then offers
0.5, 1, 2, 4 and 8 x C, then 0.5 x C again, and prints per step: goodput (successful answers per
second) / C, p99 of the answered and of the refused, the outcomes, writes committed for callers
who had already given up, the server's threads and RSS, and the CPU of each process (the load
generator's own CPU is printed beside it: on two shared cores, generating and refusing 8 x C
costs CPU the service would otherwise use). Then the goals of the overload issue.

    python3 tests/perf/overload_bench.py [--seconds 5] [--targets read,write,grpc-list,grpc-get]
    python3 tests/perf/overload_bench.py --server-args "--admission_limit adaptive"
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from cpu import CpuWindow  # noqa: E402
from stack import ROOT, Stack  # noqa: E402

LOADGEN = os.path.join(ROOT, "build", "bin", "loadgen")
MULTIPLES = [0.5, 1, 2, 4, 8, 0.5]
# ListRoomsRequest{floor: 2, amenities: ["desk"]} and GetRoomRequest{property_id: "BER1", number: "101"}.
LIST_ROOMS_REQUEST = "10022a046465736b"
GET_ROOM_REQUEST = "0a04424552311203313031"


class Sampler(threading.Thread):
    """The server's most threads and RSS during a step, sampled every 100 ms."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.threads, self.rss_mb, self.done = pid, 0, 0.0, threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                with open(f"/proc/{self.pid}/status") as f:
                    for line in f:
                        if line.startswith("Threads:"):
                            self.threads = max(self.threads, int(line.split()[1]))
                        elif line.startswith("VmRSS:"):
                            self.rss_mb = max(self.rss_mb, int(line.split()[1]) / 1024)
            except OSError:
                return
            self.done.wait(0.1)

    def stop(self):
        self.done.set()
        self.join()


class Target:
    def __init__(self, name, label, args, writes=False):
        self.name, self.label, self.args, self.writes = name, label, args, writes


class Bench:
    def __init__(self, stack, seconds, probe_seconds):
        self.stack, self.seconds, self.probe_seconds = stack, seconds, probe_seconds

    def targets(self):
        run = uuid.uuid4().hex[:10]
        body = ('{"property_id":"BER1","room_number":"101","title":"overload {seq}","category":"HVAC",'
                f'"priority":"LOW","reported_by":"bench","request_id":"ol-{run}-{{seq}}"}}')
        self.request_id_prefix = f"ol-{run}-"
        grpc = ["-grpc", self.stack.grpc_addr, "-conns", "4"]
        return {
            "read": Target("read", "GET /rooms?floor=2&amenities=desk",
                           ["-url", self.stack.base + "/rooms?floor=2&amenities=desk"]),
            "write": Target("write", "POST /issues", ["-url", self.stack.base + "/issues", "-body", body], True),
            "grpc-list": Target("grpc-list", "gRPC ListRooms (floor, amenities)",
                                grpc + ["-method", "/hotel.v1.RoomService/ListRooms", "-data", LIST_ROOMS_REQUEST]),
            "grpc-get": Target("grpc-get", "gRPC GetRoom (cached)",
                               grpc + ["-method", "/hotel.v1.RoomService/GetRoom", "-data", GET_ROOM_REQUEST]),
        }

    def step(self, target, rate, seconds):
        """One open-loop step; returns loadgen's JSON plus CPU, threads, RSS and late writes."""
        timeouts = tempfile.NamedTemporaryFile(prefix="timeouts-", delete=False).name
        sampler = Sampler(self.stack.server.pid)
        sampler.start()
        cpu = CpuWindow(self.stack.server.pid, self.stack.gateway.pid, self.stack.pg_data).start()
        out = subprocess.run([LOADGEN, "-open", "-rate", f"{rate:.0f}", "-d", f"{seconds}s", "-timeout", "1s",
                              "-timeouts-file", timeouts, *target.args], check=True, capture_output=True,
                             text=True).stdout
        used = cpu.seconds()
        result = json.loads(out)
        sampler.stop()
        result["cpu_us"] = {name: s * 1e6 / max(result["sent"], 1) for name, s in used.items()}
        result["loadgen_cores"] = used["loadgen"] / seconds
        result["threads"], result["rss_mb"] = sampler.threads, sampler.rss_mb
        result["late_writes"] = 0
        with open(timeouts) as f:
            seqs = [line.strip() for line in f if line.strip()]
        os.unlink(timeouts)
        if target.writes and seqs:
            time.sleep(1.5)  # whatever the server still does for them has committed by now
            ids = "\n".join(f"{self.request_id_prefix}{s}" for s in seqs)
            sql = ("CREATE TEMP TABLE timed_out (request_id text); COPY timed_out FROM STDIN;\n" + ids +
                   "\n\\.\nSELECT count(*) FROM issues JOIN timed_out USING (request_id);\n")
            out = subprocess.run(["psql", self.stack.owner_url, "-qAt", "-v", "ON_ERROR_STOP=1"], input=sql,
                                 check=True, capture_output=True, text=True).stdout
            result["late_writes"] = int(out.split()[-1])
        result["timed_out"] = len(seqs)
        return result

    def find_capacity(self, target):
        """C: the highest rate served with >= 99.9 % success (answered in time, not refused)."""
        self.step(target, 300, 2)  # warm-up: connections, caches, the pool
        rate, best, failed = 400.0, 0.0, None
        while failed is None and rate <= 20000:
            r = self.step(target, rate, self.probe_seconds)
            print(f"  probe {rate:7.0f}/s: success {r['success'] * 100:6.2f} %, ok p99 {r['ok_p99_ms']:.1f} ms",
                  flush=True)
            if r["success"] >= 0.999:
                best, rate = rate, rate * 1.5
            else:
                failed = rate
            time.sleep(1)
        for _ in range(2):  # two bisections between the last pass and the first failure
            if failed is None:
                break
            rate = (best + failed) / 2
            r = self.step(target, rate, self.probe_seconds)
            print(f"  probe {rate:7.0f}/s: success {r['success'] * 100:6.2f} %, ok p99 {r['ok_p99_ms']:.1f} ms",
                  flush=True)
            if r["success"] >= 0.999:
                best = rate
            else:
                failed = rate
            time.sleep(1)
        return best

    def run_target(self, target, capacity=None):
        print(f"\n== {target.label}", flush=True)
        capacity = capacity or self.find_capacity(target)
        print(f"  C = {capacity:.0f}/s", flush=True)
        rows = []
        for multiple in self.multiples:
            r = self.step(target, capacity * multiple, self.seconds)
            r["multiple"] = multiple
            rows.append(r)
            print_row(r, capacity)
        if target.args[0] == "-url":
            # The HTTP front's own ceiling: a path the gateway answers itself (404, no server call)
            # offered at 8 x C. Where even that cannot be answered in time on these shared cores,
            # no admission control can keep goodput at 8 x C.
            front = Target("front", "GET /api/v1/no-such-path", ["-url", self.stack.base + "/no-such-path"])
            r = self.step(front, capacity * 8, self.seconds)
            answered = r["classes"].get("HTTP 404", 0) / max(r["sent"], 1)
            print(f"  front ceiling: 404s from the gateway alone at 8 x C ({capacity * 8:.0f}/s): "
                  f"{answered * 100:.1f} % answered in time, load generator {r['loadgen_cores']:.2f} cores", flush=True)
        return capacity, rows


def print_header():
    print(f"  {'x C':>4} {'offered':>8} {'goodput':>8} {'/C':>5} {'ok p99':>8} {'refused p99':>11} "
          f"{'thr':>4} {'RSS':>5} {'CPU µs/req srv/gw/pg/lg':>24} {'lg cores':>8}  outcomes, late writes")


def print_row(r, capacity):
    cpu = r["cpu_us"]
    classes = ", ".join(f"{k} {v}" for k, v in sorted(r["classes"].items()))
    late = f"; late writes {r['late_writes']} of {r['timed_out']} timed out" if r["timed_out"] else ""
    print(f"  {r['multiple']:>4g} {r['rate']:>8.0f} {r['goodput']:>8.0f} {r['goodput'] / capacity:>5.2f} "
          f"{r['ok_p99_ms']:>6.1f}ms {r['refused_p99_ms']:>9.2f}ms {r['threads']:>4} {r['rss_mb']:>4.0f}M "
          f"{cpu['server']:>5.0f}/{cpu['gateway']:>4.0f}/{cpu['postgres']:>4.0f}/{cpu['loadgen']:>5.0f}"
          f" {r['loadgen_cores']:>8.2f}  {classes}{late}", flush=True)


def recovery_seconds(series, baseline_p99):
    """Seconds after the overload until every later 250 ms bucket's p99 is back near baseline."""
    limit = max(2 * baseline_p99, baseline_p99 + 5)
    for i in range(len(series)):
        if all(p <= limit for p in series[i:] if p > 0):
            return i * 0.25
    return float("inf")


def print_goals(name, capacity, rows):
    by = {}
    for r in rows[:-1]:
        by[r["multiple"]] = r
    base, after = rows[0], rows[-1]
    verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    g2, g4, g8 = (by[m]["goodput"] / capacity for m in (2, 4, 8))
    admitted_p99 = max(by[m]["ok_p99_ms"] for m in (1, 2, 4, 8))
    refused_p99 = max(r["refused_p99_ms"] for r in rows)
    recovered = recovery_seconds(after["series_p99_ms"], base["ok_p99_ms"])
    timed_out = sum(r["timed_out"] for r in rows)
    late = sum(r["late_writes"] for r in rows)
    print(f"\n  goals for {name} (C = {capacity:.0f}/s):")
    print(f"    goodput >= 0.9 C at 2x and 4x: {g2:.2f} / {g4:.2f}  {verdict(g2 >= 0.9 and g4 >= 0.9)}")
    print(f"    goodput >= 0.75 C at 8x: {g8:.2f}  {verdict(g8 >= 0.75)}  (load generator at 8x: "
          f"{by[8]['loadgen_cores']:.2f} cores of 2)")
    print(f"    admitted p99 <= 5 x p99 at 0.5 C ({base['ok_p99_ms']:.1f} ms): worst {admitted_p99:.1f} ms = "
          f"{admitted_p99 / max(base['ok_p99_ms'], 0.001):.1f}x  {verdict(admitted_p99 <= 5 * base['ok_p99_ms'])}")
    print(f"    refusals p99 <= 5 ms: worst {refused_p99:.2f} ms  {verdict(refused_p99 <= 5)}")
    print(f"    back to the 0.5 C latency within 1 s: {recovered:.2f} s  {verdict(recovered <= 1)}")
    if rows[0].get("late_writes") is not None and any(r["timed_out"] for r in rows):
        share = late / timed_out if timed_out else 0
        print(f"    writes committed after their caller's deadline <= 1 % of timed-out requests: {late} of "
              f"{timed_out} ({share * 100:.2f} %)  {verdict(share <= 0.01)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5, help="length of each load step")
    parser.add_argument("--probe-seconds", type=float, default=3, help="length of each capacity probe")
    parser.add_argument("--targets", default="read,write,grpc-list,grpc-get")
    parser.add_argument("--server-args", default="", help="extra hotel-server flags, e.g. '--admission_limit adaptive'")
    parser.add_argument("--gateway-args", default="", help="extra hotel-gateway flags")
    parser.add_argument("--capacity", type=float, help="use this C instead of searching for it (comparing settings)")
    parser.add_argument("--multiples", default=",".join(str(m) for m in MULTIPLES), help="steps, in multiples of C")
    args = parser.parse_args()
    subprocess.run(["go", "build", "-o", LOADGEN, "."], cwd=os.path.join(ROOT, "tests", "perf", "loadgen"), check=True)
    port = int(os.environ.get("HOTEL_PG_PORT", "54329"))
    _, cluster = start_cluster(port, os.path.join(ROOT, ".local"))
    stack = Stack(cluster, f"hotel_overload_bench_{os.getpid()}")
    stack.create_database()
    stack.migrate()
    stack.start_server(extra_args=args.server_args.split())
    stack.start_gateway(extra_args=args.gateway_args.split())
    stack.wait_ready()
    stack.pg_data = os.path.join(ROOT, ".local", "pgdata")
    try:
        bench = Bench(stack, args.seconds, args.probe_seconds)
        bench.multiples = [float(m) for m in args.multiples.split(",")]
        targets = bench.targets()
        print(f"server: {args.server_args or 'defaults'}; gateway: {args.gateway_args or 'defaults'}; "
              f"open loop, callers' timeout 1 s, {args.seconds:g} s a step")
        print_header()
        results = {}
        for name in args.targets.split(","):
            results[name] = bench.run_target(targets[name], args.capacity)
        print("\n== Goals")
        for name, (capacity, rows) in results.items():
            if {0.5, 2, 4, 8} <= {r["multiple"] for r in rows}:
                print_goals(targets[name].label, capacity, rows)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
