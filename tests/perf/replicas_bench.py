"""Replication benchmark (not a test; prints figures): POST /issues p50/p99 with quorum synchronous
replication against asynchronous replication in the same run, and the primary's CPU per list read
served through two read replicas (DATABASE_READ_URL) against the same reads on the primary alone.

    bash tests/perf/run.sh replicas_bench.py [--seconds 10] [--concurrency 8]

Goals (issue 32): write p99 with synchronous replication <= 1.5 x asynchronous; the primary's CPU per
list read with replicas <= 0.1 x without. Its own primary and two standbys (scripts/replicas.sh) in
.local/replicas-bench on HOTEL_BENCH_PG_PORT (default 55481; the standbys on the next two ports). The
load generator is tests/perf/loadgen (built here when missing). On a shared machine the load average
is printed beside the figures: both sides of each ratio run in the same minute, so they share it."""
import argparse
import os
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
from cpu import CpuWindow  # noqa: E402
from service_bench import LOADGEN, Bench, issue_body  # noqa: E402
from stack import ROOT, Cluster, Stack, replica_set  # noqa: E402

PORT = int(os.environ.get("HOTEL_BENCH_PG_PORT", "55481"))
DIRECTORY = os.path.join(ROOT, ".local", "replicas-bench")
LIST = "/issues?property_id=BER1&page_size=20"


def replicas(*args, sync="on"):
    return replica_set(PORT, DIRECTORY, *args, sync=sync)


def load_average():
    return open("/proc/loadavg").read().split()[0]


def row(name, r, extra=""):
    print(f"  {name:44} {r['rps']:7.0f}/s  p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:7.2f} ms  "
          f"errors {r['errors']}{extra}  (load {load_average()})", flush=True)


def writes(bench, concurrency):
    """POST /issues with synchronous and asynchronous replication, alternately, twice each."""
    print(f"POST /issues, {concurrency} callers, {bench.seconds} s a row:")
    p99 = {"on": [], "off": []}
    for mode in ("on", "off", "on", "off"):
        replicas("start", "2", sync=mode)  # running nodes stay; synchronous_standby_names is set anew
        r = bench.http("/issues", concurrency, body=issue_body())
        p99[mode].append(r["p99_ms"])
        row("synchronous (ANY 1)" if mode == "on" else "asynchronous", r)
    replicas("start", "2", sync="on")
    ratio = min(p99["on"]) / min(p99["off"])
    print(f"  write p99 synchronous / asynchronous: {ratio:.2f}  goal <= 1.5: {'met' if ratio <= 1.5 else 'NOT met'}")


def idle_primary_cpu(stack, bench):
    """The primary's CPU over a row's time with no calls: the feed's poller, the webhook senders, health
    checks (and with replicas the WAL samples), which do not grow with reads."""
    cpu = CpuWindow(stack.server.pid, stack.gateway.pid, bench.pg_data).start()
    time.sleep(bench.seconds)
    return cpu.seconds()["postgres"]


def served_by(stack):
    with urllib.request.urlopen(stack.metrics_url, timeout=10) as resp:
        text = resp.read().decode()
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r'^hotel_server_read_calls_reads_total\{served_by="([^"]*)"\} (\S+)$', text, re.M)}


def reads(stack, bench, concurrency, read_url):
    """The primary's CPU per list read, primary only, then with the standbys serving the reads: as
    measured, and beyond what the primary spends idle in the same time (the reads' own share)."""
    print(f"GET {LIST}, {concurrency} callers, {bench.seconds} s a row:")
    idle_alone = idle_primary_cpu(stack, bench)
    alone = bench.http(LIST, concurrency)
    row("primary only", alone, f"  primary CPU {alone['cpu_us']['postgres']:.0f} us/read")
    # The same server again on the same address (the gateway reconnects), now with the read URL.
    address = stack.grpc_addr
    stack.server.terminate()
    stack.server.wait(timeout=30)
    stack.start_server(listen=address, extra_args=["--database-read-url", read_url])
    stack.wait_ready()
    bench.http(LIST, concurrency)  # connections to the standbys opened, statements prepared
    idle_spread = idle_primary_cpu(stack, bench)
    before = served_by(stack)
    spread = bench.http(LIST, concurrency)
    after = served_by(stack)
    row("two read replicas", spread, f"  primary CPU {spread['cpu_us']['postgres']:.0f} us/read")
    print("  reads served by: " + ", ".join(f"{k} {after[k] - before.get(k, 0):.0f}" for k in sorted(after)))
    print(f"  primary CPU idle: {idle_alone * 1e3 / bench.seconds:.0f} ms/s primary only, "
          f"{idle_spread * 1e3 / bench.seconds:.0f} ms/s with replicas (WAL samples included)")
    ratio = spread["cpu_us"]["postgres"] / alone["cpu_us"]["postgres"]
    own = [(r["cpu_us"]["postgres"] * r["requests"] / 1e6 - idle) / r["requests"]
           for r, idle in ((spread, idle_spread), (alone, idle_alone))]
    print(f"  primary CPU per read with replicas / without: {ratio:.3f}  goal <= 0.1: "
          f"{'met' if ratio <= 0.1 else 'NOT met'} (beyond the idle CPU of the same time: "
          f"{max(own[0], 0) / own[1]:.3f})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    if not os.path.exists(LOADGEN):
        subprocess.run(["go", "build", "-o", LOADGEN, "."], check=True,
                       cwd=os.path.join(ROOT, "tests", "perf", "loadgen"))
    print(replicas("start", "2"))
    print(f"{os.cpu_count()} cores, load average {load_average()} at the start")
    stack = Stack(Cluster(PORT, DIRECTORY), "hotel_replicas_bench")
    read_url = stack.db_url.replace(f"127.0.0.1:{PORT}/", f"127.0.0.1:{PORT + 1},127.0.0.1:{PORT + 2}/")
    stack.start()
    try:
        bench = Bench(stack, args.seconds, os.path.join(DIRECTORY, "pgdata"))
        writes(bench, args.concurrency)
        reads(stack, bench, args.concurrency, read_url)
    finally:
        stack.stop()
        replicas("stop")


if __name__ == "__main__":
    main()
