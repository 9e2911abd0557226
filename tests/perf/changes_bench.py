"""Change feed benchmark (not a test; prints figures): commit-to-delivery latency at a fixed write
rate with many watchers, the server's memory and threads with 10,000 idle watchers, and
POST /issues throughput with the change log on, off, and against the write ceiling measured in
the same run (service_bench's pgbench issue + event). Run it with

    bash tests/perf/run.sh changes_bench.py

Latency is measured by `loadgen -watch` (Go, so the watchers are not the bottleneck): for every
issue change a watcher receives, the time since the issue's created_at (the start of the writing
transaction), so it includes the write itself and is an upper bound of commit-to-delivery."""
import argparse
import json
import os
import subprocess
import sys
import time

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
from changefeed import grpc_watch  # noqa: E402
from conftest import start_cluster  # noqa: E402
from service_bench import LOADGEN, WRITE_CEILING_SETUP, WRITE_CEILING_SQL, Bench, issue_body  # noqa: E402
from stack import ROOT, Stack  # noqa: E402

# WatchChangesRequest{resource_type: [ISSUE], view: CHANGE_VIEW_FULL} and {property_id: "ZZZ9"}
# (no such property: the watcher stays idle) in protobuf wire format.
WATCH_ISSUES_FULL = "10072002"
WATCH_NOTHING = "1a045a5a5a39"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def wait_for_feed(stack):
    """Until a watch gets its first message: the hub's first poll follows the server's readiness
    by a few milliseconds, and a watch before it is refused (UNAVAILABLE, retry)."""
    for _ in range(100):
        with grpc.insecure_channel(stack.grpc_addr) as channel:
            try:
                next(iter(grpc_watch(channel, timeout=2)))
                return
            except grpc.RpcError:
                time.sleep(0.05)
    raise AssertionError("the change feed never started")


def watchers(stack, count, request, seconds, method=None):
    """Starts `loadgen -watch` (WatchChanges, or another server-streaming method); returns the
    process once every stream has its first message."""
    wait_for_feed(stack)
    proc = subprocess.Popen([LOADGEN, "-grpc", stack.grpc_addr, "-watch", str(count), "-data", request,
                             "-d", f"{seconds}s"] + (["-method", method] if method else []),
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line == "ready", line
    return proc


def write_and_delivery(stack, bench, pg_data, args):
    """POST /issues with the change log on and off against the write ceiling; delivery latency."""
    print(f"{'write throughput':48} {'conc':>4} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    peak = {}

    def row(name, concurrency, r):
        peak[name] = max(peak.get(name, 0), r["rps"])
        print(f"{name:48} {concurrency:4d} {r['rps']:8.0f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} "
              f"{r['errors']:6d}", flush=True)
    for c in (8, 32):
        row("pgbench issue + CREATED event (ceiling)", c, bench.pgbench(c, WRITE_CEILING_SQL))
    stack.psql("ALTER TABLE issues DISABLE TRIGGER issues_stage_change")
    for c in (8, 32):
        row("REST POST /issues, change log off", c, bench.http("/issues", c, body=issue_body()))
    stack.psql("ALTER TABLE issues ENABLE TRIGGER issues_stage_change")
    for c in (8, 32):
        row("REST POST /issues, change log on", c, bench.http("/issues", c, body=issue_body()))
    on, off = peak["REST POST /issues, change log on"], peak["REST POST /issues, change log off"]
    ceiling = peak["pgbench issue + CREATED event (ceiling)"]
    print(f"\nPOST /issues with the log / without: {on / off:.2f}; with the log / write ceiling: "
          f"{on / ceiling:.2f}; without / ceiling: {off / ceiling:.2f}\n", flush=True)

    # Delivery latency: the watchers are connected first, then the writer runs at a fixed rate.
    print(f"{'commit-to-delivery (write start to watcher)':44} {'writes/s':>9} {'deliveries':>10} "
          f"{'cut off':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  goal p50 <= 20, p99 <= 100")
    for count, rate in [(args.watchers, args.rate), (10, args.rate), (args.watchers, args.rate // 5)]:
        watching = watchers(stack, count, WATCH_ISSUES_FULL, args.seconds + 3)
        writer = Bench(stack, args.seconds, pg_data).http("/issues", 32, body=issue_body(), rate=rate)
        latency = json.loads(watching.communicate(timeout=120)[0].strip().splitlines()[-1])
        met = latency["p50_ms"] <= 20 and latency["p99_ms"] <= 100 and latency["errors"] == 0
        print(f"{f'{count} watchers, {rate} changes/s asked':44} {writer['rps']:9.0f} {latency['changes']:10d} "
              f"{latency['errors']:7d} {latency['p50_ms']:8.2f} {latency['p99_ms']:8.2f} "
              f"{latency['max_ms']:8.2f}  {'yes' if met else 'NO'}", flush=True)
    print()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10, help="measurement time per row")
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--rate", type=int, default=1000, help="changes per second written during the latency run")
    parser.add_argument("--idle", type=int, default=10000, help="idle watchers for the memory figure")
    parser.add_argument("--memory-only", action="store_true", help="only the idle watchers' memory and threads")
    args = parser.parse_args()

    _, cluster = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    stack = Stack(cluster, "hotel_changes_perf")
    try:
        stack.create_database()
        stack.migrate()
        stack.start_server(extra_args=["--change-max-watchers", str(args.idle + args.watchers + 100)])
        stack.start_gateway()
        stack.wait_ready()
        stack.psql(WRITE_CEILING_SETUP)
        pg_data = os.path.join(ROOT, ".local", "pgdata")
        bench = Bench(stack, 5, pg_data)
        if not args.memory_only:
            write_and_delivery(stack, bench, pg_data, args)

        # Memory: the server's resident size with idle watchers connected, over the same without;
        # the same for gRPC's own Health/Watch streams (its default health service, also on the
        # callback API), the floor of what a server stream costs on this gRPC.
        def idle_cost(request, method=None):
            """RSS, threads and KB per stream with args.idle idle streams, on a fresh server (one
            that has held streams before reuses their freed memory)."""
            stack.server.terminate()
            stack.server.wait(timeout=30)
            stack.start_server(extra_args=["--change-max-watchers", str(args.idle + 100)])
            time.sleep(1)
            base_rss = rss_mb(stack.server.pid)
            idle = watchers(stack, args.idle, request, 8, method)
            time.sleep(2)
            with_idle = rss_mb(stack.server.pid)
            threads = len(os.listdir(f"/proc/{stack.server.pid}/task"))
            idle.communicate(timeout=60)
            return base_rss, with_idle, threads, (with_idle - base_rss) * 1024 / args.idle

        _, _, _, per_health_kb = idle_cost("", "/grpc.health.v1.Health/Watch")
        base_rss, with_idle, threads, per_watcher_kb = idle_cost(WATCH_NOTHING)
        print(f"{'server memory':48} {'value':>10}  goal")
        print(f"{'RSS without watchers':48} {base_rss:8.1f}MB")
        print(f"{f'RSS with {args.idle} idle watchers':48} {with_idle:8.1f}MB")
        print(f"{'server threads with them':48} {threads:10d}  < 100: {'yes' if threads < 100 else 'NO'}")
        print(f"{'per idle watcher':48} {per_watcher_kb:8.1f}KB  <= 10 KB: {'yes' if per_watcher_kb <= 10 else 'NO'}")
        print(f"{'per idle gRPC Health/Watch stream (the floor)':48} {per_health_kb:8.1f}KB  "
              f"watcher / floor: {per_watcher_kb / per_health_kb:.2f}")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
