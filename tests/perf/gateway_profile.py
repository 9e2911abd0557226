"""Gateway CPU profile (not a test): drives REST GetRoom and POST /issues through the real server,
gateway and PostgreSQL, takes the gateway's CPU profile over each load (GATEWAY_PPROF_ADDR) and
prints pprof's top functions (CPU flat and cumulative, bytes allocated) and the CPU per request
of each process. The gateway logs at its default (GATEWAY_ACCESS_LOG=sampled) unless told otherwise.
Profiles are kept in build/profiles/ for `go tool pprof -http`.

    bash tests/perf/run.sh gateway_profile.py [--seconds 10] [--concurrency 8] [--top 25] [--trace-ratio 1.0] [--bare]

--bare profiles the bare grpc-gateway of gateway_cpu_bench.py in front of the same server instead,
to set the two profiles side by side.

With --trace-ratio both processes export their traces (sampled at that ratio) to the test run's trace backend
(tests/e2e/trace_backend.py), as tests/perf/tracing_bench.py runs them.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
from cpu import CpuWindow  # noqa: E402
from service_bench import LOADGEN, issue_body  # noqa: E402
from gateway_cpu_bench import bare_gateway  # noqa: E402
from stack import BIN, ROOT, Stack, free_port  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--trace-ratio", type=float, help="export traces sampled at this ratio (default: off)")
    parser.add_argument("--bare", action="store_true", help="profile the bare grpc-gateway instead")
    args = parser.parse_args()
    os.environ.setdefault("GATEWAY_ACCESS_LOG", "sampled")
    collector = None
    if args.trace_ratio is not None:
        from trace_backend import Collector
        collector = Collector(tempfile.mkdtemp(prefix="trace-backend-"))
        collector.start()
        os.environ.update(OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint, OTEL_TRACES_SAMPLER_ARG=str(args.trace_ratio))
    subprocess.run(["go", "build", "-o", LOADGEN, "."], cwd=os.path.join(ROOT, "tests", "perf", "loadgen"), check=True)
    pprof = f"127.0.0.1:{free_port()}"
    if not args.bare:
        os.environ["GATEWAY_PPROF_ADDR"] = pprof
    port = os.environ.get("HOTEL_PG_PORT", "54329")
    pg_dir = os.environ.get("HOTEL_PG_DIR", os.path.join(ROOT, ".local"))
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_profile").start()
    out_dir = os.path.join(ROOT, "build", "profiles")
    os.makedirs(out_dir, exist_ok=True)
    binary, gateway, base, prefix = os.path.join(BIN, "hotel-gateway"), stack.gateway, stack.base, "gateway"
    try:
        if args.bare:
            binary, prefix = bare_gateway(), "bare"
            gateway = subprocess.Popen([binary, "--grpc-server", stack.grpc_addr, "--pprof", pprof],
                                       stdout=subprocess.PIPE, text=True)
            base = re.search(r"listening on (http://\S+)", gateway.stdout.readline()).group(1) + "/api/v1"
        for name, extra in [("get-room", ["-url", base + "/rooms/101?property_id=BER1"]),
                            ("post-issues", ["-url", base + "/issues", "-body", issue_body()])]:
            profile = os.path.join(out_dir, f"{prefix}-{name}.pprof")
            # The profile covers the middle of the load: connections are open before it starts.
            fetch = threading.Thread(target=lambda: urllib.request.urlretrieve(
                f"http://{pprof}/debug/pprof/profile?seconds={args.seconds - 2}", profile))
            cpu = CpuWindow(stack.server.pid, gateway.pid, os.path.join(pg_dir, "pgdata")).start()
            allocs_before = os.path.join(out_dir, f"{prefix}-{name}-allocs-before.pprof")
            urllib.request.urlretrieve(f"http://{pprof}/debug/pprof/allocs", allocs_before)
            load = subprocess.Popen([LOADGEN, "-c", str(args.concurrency), "-d", f"{args.seconds}s", *extra],
                                    stdout=subprocess.PIPE, text=True)
            fetch.start()
            result = load.communicate()[0]
            fetch.join()
            allocs = os.path.join(out_dir, f"{prefix}-{name}-allocs.pprof")
            urllib.request.urlretrieve(f"http://{pprof}/debug/pprof/allocs", allocs)
            result = json.loads(result)
            requests = result["requests"]
            used = cpu.per_request(requests)
            with open(f"/proc/{gateway.pid}/status") as f:
                peak = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))
            print(f"== {name}: {requests / args.seconds:.0f} req/s at {args.concurrency}; µs CPU per request: " +
                  ", ".join(f"{k} {v:.0f}" for k, v in used.items()) + f"; gateway peak RSS {peak:.1f} MB; {result['errors']} errors {result.get('first_error', '')}")
            # CPU flat and cumulative, then the bytes allocated during the load (allocations are
            # what the garbage collector's share of the CPU follows).
            for options in (["-top"], ["-top", "-cum"], ["-top", "-sample_index=alloc_space", "-base", allocs_before]):
                top = subprocess.run(["go", "tool", "pprof", *options, f"-nodecount={args.top}",
                                      binary,
                                      allocs if "-base" in options else profile],
                                     capture_output=True, text=True, cwd=os.path.join(ROOT, "gateway"))
                print(top.stdout)
            if args.bare:
                continue
            memory = urllib.request.urlopen(stack.metrics_url).read().decode()
            print("\n".join(line for line in memory.splitlines() if line.startswith(
                ("go_memstats_heap_inuse_bytes", "go_memstats_sys_bytes", "go_gc_duration_seconds_count",
                 "process_resident_memory_bytes"))))
    finally:
        if gateway is not stack.gateway:
            gateway.terminate()
            gateway.wait(timeout=20)
        stack.stop()
        if collector:
            collector.stop()


if __name__ == "__main__":
    main()
