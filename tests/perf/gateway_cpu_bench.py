"""Gateway CPU per request (not a test): the gateway of this checkout against release 1.3's and
against a bare grpc-gateway (tests/perf/baregateway: the generated handlers and net/http, nothing
else), each in front of the same server and database, taking turns so that whatever else the
machine does falls on all alike. Traces are exported at a 10 % sampling ratio to the test
run's trace backend, as production samples; the bare gateway traces nothing. Each gateway runs with
its default access log (1.3: a line per request; this one: a sample), and this one again with a line
per request (GATEWAY_ACCESS_LOG=all).

    bash tests/perf/run.sh gateway_cpu_bench.py [--seconds 8] [--rounds 3] [--concurrency 8]

Prints the gateway's microseconds of CPU (user + system) per REST GetRoom and per POST /issues,
the median of the rounds, and the ratios against 1.3 and against the floor, the bare grpc-gateway
(goal, issue 57: at most 1.25).
Release 1.3's gateway is built once from its commit into ~/.cache/hotel-data-service."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
from cpu import cpu_seconds  # noqa: E402
from service_bench import LOADGEN, issue_body  # noqa: E402
from stack import BIN, ROOT, Stack  # noqa: E402

RELEASE_1_3 = "1891b0a7a2cf0018b9e24909a90911efdcdb5482"
CACHE = os.path.expanduser("~/.cache/hotel-data-service")


def go(*args, cwd):
    subprocess.run(["bash", "-c", '. scripts/go-toolchain.sh && use_go && cd "$0" && GOFLAGS=-mod=mod go "$@"',
                    cwd, *args], cwd=ROOT, check=True)


def release_gateway():
    """Release 1.3's hotel-gateway, built from its commit (once)."""
    src = os.path.join(CACHE, f"gateway-{RELEASE_1_3}")
    binary = os.path.join(src, "build", "bin", "hotel-gateway")
    if not os.path.exists(binary):
        os.makedirs(src, exist_ok=True)
        subprocess.run(f"git archive {RELEASE_1_3} | tar -x -C {src}", shell=True, cwd=ROOT, check=True)
        subprocess.run(["bash", "scripts/build-gateway.sh", "run"], cwd=src, check=True, stdout=subprocess.DEVNULL)
    return binary


def bare_gateway():
    binary = os.path.join(BIN, "baregateway")
    go("build", "-o", binary, ".", cwd=os.path.join(ROOT, "tests", "perf", "baregateway"))
    return binary


class Gateway:
    """One gateway binary in front of the stack's server, on a port of its own."""

    def __init__(self, binary, backend, traced, access_log):
        args = [binary, "--listen", "127.0.0.1:0", "--grpc-server", backend]
        if traced:
            args += ["--metrics-listen", "127.0.0.1:0"]
        env = dict(os.environ, GATEWAY_ACCESS_LOG=access_log) if access_log else os.environ
        self.log = tempfile.NamedTemporaryFile(prefix="bench-gateway-", suffix=".log", delete=False).name
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(self.log, "w"), text=True, env=env)
        line = self.proc.stdout.readline()
        self.base = re.search(r"listening on (http://\S+)", line).group(1) + "/api/v1"

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


def loadgen(concurrency, seconds, *extra):
    out = subprocess.run([LOADGEN, "-c", str(concurrency), "-d", f"{seconds}s", "-warmup", "0s", *extra],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def measure(gateway, workload, concurrency, seconds):
    """Microseconds of the gateway's CPU per request over seconds of load, after a warm-up."""
    url = gateway.base + workload[0]
    extra = ["-url", url] + (["-body", issue_body()] if workload[1] else [])
    loadgen(concurrency, 1, *extra)
    before = cpu_seconds(gateway.proc.pid)
    result = loadgen(concurrency, seconds, *extra)
    used = cpu_seconds(gateway.proc.pid) - before
    assert result["errors"] == 0, result
    return used * 1e6 / result["requests"], result["requests"] / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    go("build", "-o", LOADGEN, ".", cwd=os.path.join(ROOT, "tests", "perf", "loadgen"))
    from trace_backend import Collector
    collector = Collector(tempfile.mkdtemp(prefix="trace-backend-"))
    collector.start()
    os.environ.update(OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint, OTEL_TRACES_SAMPLER_ARG="0.1")
    os.environ.pop("GATEWAY_ACCESS_LOG", None)
    # Each at its default access log (1.3: a line per request; this: a sample), and this one with a
    # line per request too.
    this = os.path.join(BIN, "hotel-gateway")
    variants = {"1.3": (release_gateway(), True, None), "this": (this, True, None),
                "all": (this, True, "all"), "bare": (bare_gateway(), False, None)}
    port = os.environ.get("HOTEL_PG_PORT", "54329")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_gateway_cpu").start()
    workloads = {"GetRoom": ("/rooms/101?property_id=BER1", False), "POST /issues": ("/issues", True)}
    cpu = {(v, w): [] for v in variants for w in workloads}
    rate = {(v, w): [] for v in variants for w in workloads}
    try:
        for round_ in range(args.rounds):
            for name, (binary, traced, access_log) in variants.items():
                gateway = Gateway(binary, stack.grpc_addr, traced, access_log)
                try:
                    for workload, spec in workloads.items():
                        us, rps = measure(gateway, spec, args.concurrency, args.seconds)
                        cpu[name, workload].append(us)
                        rate[name, workload].append(rps)
                        print(f"round {round_ + 1}: {name:4} {workload:13} {us:6.0f} µs/request at {rps:6.0f}/s",
                              flush=True)
                finally:
                    gateway.stop()
                time.sleep(1)
    finally:
        stack.stop()
        collector.stop()
    print(f"\nGateway CPU per request, median of {args.rounds} rounds, {args.concurrency} callers, "
          "traces sampled at 10 % (not the bare gateway):")
    print("(µs per request; 1.3 and this at their default access logs, all: this with a line per request)")
    print(f"{'workload':14} {'1.3':>7} {'this':>7} {'all':>7} {'bare':>7}   this/1.3   all/1.3   "
          "this/bare (goal ≤ 1.25)")
    for workload in workloads:
        med = {v: statistics.median(cpu[v, workload]) for v in variants}
        ratio = med["this"] / med["bare"]
        print(f"{workload:14} {med['1.3']:7.0f} {med['this']:7.0f} {med['all']:7.0f} {med['bare']:7.0f}   "
              f"{med['this'] / med['1.3']:8.2f}   {med['all'] / med['1.3']:7.2f}   "
              f"{ratio:5.2f} {'met' if ratio <= 1.25 else 'NOT met'}")


if __name__ == "__main__":
    main()
