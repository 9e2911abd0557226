"""Overload benchmark (not a test): how much of its capacity the service keeps when offered more
than it can serve, what refusing the excess costs, and whether a gateway that has served for a
long time serves what a fresh one does. Open-loop load (tests/perf/loadgen -open: arrivals at a
fixed rate, each caller with a 1 s timeout, whatever the service answers) against the real
server, gateways and PostgreSQL on this machine.

One server, two gateways in front of it: a fresh one, and an aged one that has first served
--age-requests requests (cached GetRoom and the list read, closed loop) and an overload (8 x C of
the list read). For each target it finds C on the fresh gateway (probes, then C confirmed for a
whole step, a tenth off each time it is not; or takes --capacity), then runs the ladder
(--multiples, default 0.5, 1, 2, 4 x C) --runs times, each step against the fresh and then the
aged gateway, and prints per step: goodput / C, p99 of the answered, refusal p50 / p99,
the gateway's collections and the collector's share of its CPU (runtime/metrics, from its
/metrics), CPU per served and per refused request in the gateway and the server, the peak RSS of
the gateway against the container limit (deploy/k8s/base/deployment.yaml) and of the server,
the generator's own CPU (lg, cores) and how late it sent against its schedule (lag, p99), and
the outcomes. Then the worst of the runs, and the goals of issue 40, each goodput verdict noting
whether the generator fell behind (it shares the two cores: a generator that cannot keep its
schedule or its callers' deadlines measures itself as much as the service).

CPU per request is priced at the margin, so that what a step costs whatever its load (the
scrapes of /metrics, the runtime's background work) cancels out: per served request, the CPU
difference between the two lowest steps (nothing refused there) over the difference in answers;
per refused request in the gateway, the same between two steps of a third gateway that has no
slot and refuses everything (at 2/3 C and 2 x C, or --refusal-rates); per refused request in the server, a step's
CPU beyond its served requests over the refusals the server made itself
(hotel_server_requests_shed_total), an estimate that is noisy on a shared machine. Writes committed for callers who had already
given up are counted in the database by request_id.

Issue 57's checks (scripts/up.sh's log settings, the fresh gateway only, no issue-40 ladder): --issue57
prints one table, each target (the room list, GET /rooms/{n}, POST /issues, gRPC GetRoom and ListRooms)
at 2 x and 4 x C with the callers' deadline sent and kept to themselves (they give up at 1 s either
way), against the goals; --burst, bursts of 3 x C for 200 ms every second; --one-client, one client
address offering 4 x C over more connections than its share at the gateway. The open loop comes
from --laddrs (eight loopback addresses by default), as from several clients.

    bash tests/perf/run.sh overload_bench.py [--seconds 5] [--runs 3] [--targets read,get,write]
    bash tests/perf/run.sh overload_bench.py --issue57 [--burst] [--one-client] [--capacity read=700,...]
    bash tests/perf/run.sh overload_bench.py --capacity read=1200,get=3000,write=700 --age-requests 200000
    bash tests/perf/run.sh overload_bench.py --pin      # load generator on CPU 0, the stack on CPU 1
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from cpu import CpuWindow, cpu_seconds  # noqa: E402
from stack import ROOT, Stack, free_port  # noqa: E402

LOADGEN = os.path.join(ROOT, "build", "bin", "loadgen")
# A send lag p99 beyond this: the generator could not keep the open loop's schedule.
GENERATOR_LAG_MS = 100
# A step "served everything" at this success (answered in time, not refused): C's probes, and
# the steps a served request is priced from.
SERVED_ALL = 0.999
MULTIPLES = [0.5, 1, 2, 4]
# ListRoomsRequest{floor: 2, amenities: ["desk"]} and GetRoomRequest{property_id: "BER1", number: "101"}.
LIST_ROOMS_REQUEST = "10022a046465736b"
GET_ROOM_REQUEST = "0a04424552311203313031"


def container_limit_mb():
    """The gateway container's memory limit in deploy/k8s/base/deployment.yaml."""
    with open(os.path.join(ROOT, "deploy", "k8s", "base", "deployment.yaml")) as f:
        text = f.read()
    gateway = text[text.index("- name: gateway"):]
    limits = gateway[gateway.index("limits:"):]
    value = re.search(r"memory:\s*(\d+)Mi", limits).group(1)
    return int(value)


class Sampler(threading.Thread):
    """A process's most threads and RSS during a step, sampled every 50 ms."""

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
            self.done.wait(0.05)

    def stop(self):
        self.done.set()
        self.join()


def scrape(metrics_url):
    """The few metrics of a gateway's /metrics (its own and the server's) the bench reads."""
    wanted = {"go_gc_cycles_total_gc_cycles_total": "gc_cycles", "go_cpu_classes_gc_total_cpu_seconds_total": "gc_cpu",
              "go_cpu_classes_idle_cpu_seconds_total": "idle_cpu", "go_cpu_classes_total_cpu_seconds_total": "total_cpu",
              "hotel_gateway_requests_shed_total": "gateway_shed", "hotel_server_requests_shed_total": "server_shed",
              "go_goroutines": "goroutines", "go_memstats_heap_inuse_bytes": "heap_inuse"}
    values = dict.fromkeys(wanted.values(), 0.0)
    text = urllib.request.urlopen(metrics_url, timeout=10).read().decode()
    for line in text.splitlines():
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in wanted:
            values[wanted[name]] += float(line.rsplit(" ", 1)[1])
    return values


class Gateway:
    def __init__(self, name, proc, root, metrics_url):
        self.name, self.proc, self.root, self.base = name, proc, root, root + "/api/v1"
        self.metrics_url = metrics_url


class Target:
    """A REST path (through a gateway), or a gRPC method called on the server directly (grpc)."""

    def __init__(self, name, label, path, body=None, grpc=None):
        self.name, self.label, self.path, self.body, self.grpc = name, label, path, body, grpc
        self.writes = body is not None

    def args(self, gateway):
        if self.grpc:
            return self.grpc
        return ["-url", gateway.base + self.path] + (["-body", self.body] if self.body else [])


class Bench:
    def __init__(self, stack, args):
        self.stack, self.seconds, self.probe_seconds = stack, args.seconds, args.probe_seconds
        self.loadgen_prefix = ["taskset", "-c", "0"] if args.pin else []
        self.client_conns = args.client_conns
        self.laddrs, self.keep_deadline = args.laddrs, args.keep_deadline
        run = uuid.uuid4().hex[:10]
        self.request_id_prefix = f"ol-{run}-"
        body = ('{"property_id":"BER1","room_number":"101","title":"overload {seq}","category":"HVAC",'
                f'"priority":"LOW","reported_by":"bench","request_id":"ol-{run}-{{seq}}"}}')
        self.targets = {
            "read": Target("read", "GET /rooms?floor=2&amenities=desk (PostgreSQL)", "/rooms?floor=2&amenities=desk"),
            "get": Target("get", "GET /rooms/101?property_id=BER1 (cached GetRoom)", "/rooms/101?property_id=BER1"),
            "write": Target("write", "POST /issues", "/issues", body),
        }
        grpc = ["-grpc", stack.grpc_addr, "-conns", "4"]
        for name, label, method, data in (("grpc-list", "gRPC ListRooms (floor, amenities)", "ListRooms",
                                           LIST_ROOMS_REQUEST),
                                          ("grpc-get", "gRPC GetRoom (cached)", "GetRoom", GET_ROOM_REQUEST)):
            self.targets[name] = Target(name, label, None, grpc=grpc + [
                "-method", f"/hotel.v1.RoomService/{method}", "-data", data])

    def loadgen(self, args):
        return json.loads(subprocess.run(self.loadgen_prefix + [LOADGEN, *args], check=True, capture_output=True,
                                         text=True).stdout)

    def step(self, target, gateway, rate, seconds, keep_deadline=None, laddrs=None, client_conns=None, extra=()):
        """One open-loop step against gateway; loadgen's JSON plus CPU, GC, RSS and late writes.
        keep_deadline, laddrs and client_conns: this step's, instead of the bench's options;
        extra: more loadgen flags."""
        keep_deadline = self.keep_deadline if keep_deadline is None else keep_deadline
        laddrs = self.laddrs if laddrs is None else laddrs
        client_conns = self.client_conns if client_conns is None else client_conns
        timeouts = tempfile.NamedTemporaryFile(prefix="timeouts-", delete=False).name
        samplers = {"server": Sampler(self.stack.server.pid), "gateway": Sampler(gateway.proc.pid)}
        for s in samplers.values():
            s.start()
        before = scrape(gateway.metrics_url)
        cpu = CpuWindow(self.stack.server.pid, gateway.proc.pid, self.stack.pg_data).start()
        pool = ["-max-conns", str(client_conns)] if client_conns and not target.grpc else []
        pool += ["-laddrs", laddrs] if laddrs else []
        pool += ["-keep-deadline"] if keep_deadline else []
        began = time.monotonic()
        result = self.loadgen(["-open", "-rate", f"{rate:.0f}", "-d", f"{seconds}s", "-timeout", "1s",
                               "-timeouts-file", timeouts, *pool, *extra, *target.args(gateway)])
        used, wall = cpu.seconds(), time.monotonic() - began
        after = scrape(gateway.metrics_url)
        for s in samplers.values():
            s.stop()
        result["gateway"], result["writes"] = gateway.name, target.writes
        result["cpu_s"] = used
        result["loadgen_cores"] = used["loadgen"] / wall  # over its whole run: a late generator runs longer
        result["delta"] = {k: after[k] - before[k] for k in after}
        result["goroutines"] = after["goroutines"]
        # The runtime's own accounting (runtime/metrics /cpu/classes): the collector's share of the
        # time its Ps were busy. Against /proc's CPU it would count GC workers' wall time while the
        # kernel ran other processes on these shared cores.
        busy = result["delta"]["total_cpu"] - result["delta"]["idle_cpu"]
        result["gc_share"] = result["delta"]["gc_cpu"] / busy if busy > 0 else 0
        result["server_rss_mb"] = samplers["server"].rss_mb
        result["gateway_rss_mb"] = samplers["gateway"].rss_mb
        result["ok"] = result["classes"].get("ok", 0)
        result["refused"] = result["classes"].get("refused", 0)
        result["refused_conn"] = result["classes"].get("refused-conn", 0)
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

    def served_all(self, target, gateway, rate, seconds, label):
        """One step at rate, printed; whether it served (nearly) every request (SERVED_ALL)."""
        r = self.step(target, gateway, rate, seconds)
        print(f"  {label} {rate:7.0f}/s for {seconds:g} s: success {r['success'] * 100:6.2f} %, "
              f"ok p99 {r['ok_p99_ms']:.1f} ms", flush=True)
        return r["success"] >= SERVED_ALL

    def find_capacity(self, target, gateway):
        """C: the highest rate served with >= 99.9 % success (answered in time, not refused), in the
        probes and then for a whole step."""
        rate, best, failed = 400.0, 0.0, None
        while failed is None and rate <= 20000:
            if self.served_all(target, gateway, rate, self.probe_seconds, "probe"):
                best, rate = rate, rate * 1.5
            else:
                failed = rate
        for _ in range(2):  # two bisections between the last pass and the first failure
            if failed is None:
                break
            rate = (best + failed) / 2
            if self.served_all(target, gateway, rate, self.probe_seconds, "probe"):
                best = rate
            else:
                failed = rate
        # A probe is shorter than a step: C must also hold for a whole step, or every ratio of the
        # ladder is against a rate the stack cannot serve (a list read's C of 1,125/s served
        # 0.80-0.85 of itself at 1 x). Each failed confirmation takes a tenth off.
        for _ in range(3):
            if self.served_all(target, gateway, best, self.seconds, "confirm"):
                break
            best *= 0.9
        return best

    def age(self, gateway, requests, overload_rate):
        """Has gateway serve `requests` requests (closed loop) and then an overload."""
        served, started = 0, time.time()
        while served < requests:
            for target in (self.targets["get"], self.targets["read"]):
                r = self.loadgen(["-c", "32", "-d", "10s", "-warmup", "0s", *target.args(gateway)])
                served += r["requests"]
        print(f"  aged gateway: {served} requests in {time.time() - started:.0f} s", flush=True)
        r = self.step(self.targets["read"], gateway, overload_rate, 5)
        print(f"  aged gateway: overload {overload_rate:.0f}/s for 5 s: {r['classes']}", flush=True)
        m = scrape(gateway.metrics_url)
        print(f"  aged gateway after: heap in use {m['heap_inuse'] / 2**20:.1f} MiB, "
              f"{m['goroutines']:.0f} goroutines, {m['gc_cycles']:.0f} collections so far", flush=True)

    def callers(self, target, gateway, callers, seconds):
        """callers concurrent closed-loop callers (each its own connection): the gateway's peak
        goroutines (from its pprof listener: /metrics may wait behind the connection cap) and RSS."""
        peak = {"goroutines": 0}
        done = threading.Event()

        def sample_goroutines():
            while not done.is_set():
                try:
                    first = urllib.request.urlopen(f"http://{gateway.pprof}/debug/pprof/goroutine?debug=1",
                                                   timeout=5).readline().decode()
                    peak["goroutines"] = max(peak["goroutines"], int(first.rsplit(" ", 1)[1]))
                except (OSError, ValueError, IndexError):
                    pass
                done.wait(0.25)

        sampler, counter = Sampler(gateway.proc.pid), threading.Thread(target=sample_goroutines, daemon=True)
        sampler.start()
        counter.start()
        r = self.loadgen(["-c", str(callers), "-d", f"{seconds}s", "-warmup", "1s", "-timeout", "5s",
                          *target.args(gateway)])
        done.set()
        counter.join()
        sampler.stop()
        print(f"  {callers} callers, closed loop, {target.label}: {r['rps']:.0f} answers/s ({r['errors']} errors "
              f"of {r['requests']}, {r['errors_5xx']} 5xx, p99 {r['p99_ms']:.0f} ms); gateway peak "
              f"{peak['goroutines']} goroutines, RSS {sampler.rss_mb:.0f} MB of {container_limit_mb()} MiB",
              flush=True)

    def refusal_price(self, target, rate, low_rate=None):
        """Gateway CPU per refused request, at the margin: the refuser gateway refuses every
        request it gets; the CPU it spends on rate requests a second beyond low_rate (rate / 3),
        per refusal (what a step costs whatever its load, the scrapes of /metrics, cancels out)."""
        low = self.step(target, self.refuser, low_rate or rate / 3, self.seconds)
        high = self.step(target, self.refuser, rate, self.seconds)
        extra = high["refused"] - low["refused"]
        return (high["cpu_s"]["gateway"] - low["cpu_s"]["gateway"]) * 1e6 / max(extra, 1), high

    def server_refusal_price(self, low_rate, high_rate):
        """Server CPU per refused call, at the margin: gRPC GetRoom sent straight to a second server
        on the same database that has one slot and no queue, its slot held by an UpdateIssue waiting
        on a row another session has locked (no CPU while it waits; its deadline, 120 s, outlasts the
        measurement: a gap would let a GetRoom take the slot), so nearly every call is refused
        at admission; the CPU it spends at high_rate beyond low_rate, per extra refusal (the calls
        it served meanwhile priced as the main server's served GetRoom). Then gRPC's own floor, priced
        alike: calls to a method the server does not have, answered UNIMPLEMENTED by gRPC itself (no
        code of ours runs). Returns the low and high steps of each: ([GetRoom], [unimplemented])."""
        body = json.dumps({"property_id": "BER1", "room_number": "101", "title": "slot holder", "category": "OTHER",
                           "priority": "LOW", "reported_by": "bench"}).encode()
        request = urllib.request.Request(self.gateways[0].base + "/issues", data=body,
                                         headers={"Content-Type": "application/json"})
        issue_id = json.load(urllib.request.urlopen(request, timeout=10))["id"]
        refusing = Stack(self.stack.cluster, self.stack.database)
        refusing.start_server(extra_args=["--max-in-flight=1", "--admission-queue=0",
                                          "--rpc-log-sample=0", "--write-timeout=120s",
                                          "--statement-timeout=120s"])  # the session's 5 s would end the wait
        # UpdateIssueRequest{id, issue: {title: "held"}, update_mask: {paths: ["title"]}}, hex.
        def field(number, payload):
            return bytes([number << 3 | 2, len(payload)]) + payload
        update = (field(1, issue_id.encode()) + field(2, field(5, b"held")) + field(3, field(1, b"title"))).hex()
        locker = subprocess.Popen(["psql", self.stack.owner_url, "-qAt"], stdin=subprocess.PIPE, text=True,
                                  stdout=subprocess.DEVNULL)
        locker.stdin.write(f"BEGIN; SELECT 1 FROM issues WHERE id = '{issue_id}' FOR UPDATE;\n")
        locker.stdin.flush()
        holder = subprocess.Popen(self.loadgen_prefix + [
            LOADGEN, "-grpc", refusing.grpc_addr, "-method", "/hotel.v1.IssueService/UpdateIssue", "-data", update,
            "-c", "1", "-d", f"{4 * self.seconds + 10}s", "-warmup", "0s", "-timeout", "120s"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)
            steps = ([], [])
            for method, rows in zip(("/hotel.v1.RoomService/GetRoom", "/hotel.v1.RoomService/NoSuchMethod"), steps):
                call = ["-grpc", refusing.grpc_addr, "-conns", "4", "-method", method, "-data", GET_ROOM_REQUEST]
                for rate in (low_rate, high_rate):
                    cpu_before = cpu_seconds(refusing.server.pid)
                    r = self.loadgen(["-open", "-rate", f"{rate:.0f}", "-d", f"{self.seconds}s", "-timeout", "1s",
                                      *call])
                    r["cpu_s"] = cpu_seconds(refusing.server.pid) - cpu_before
                    r["ok"], r["refused"] = r["classes"].get("ok", 0), r["classes"].get("refused", 0)
                    r["unimplemented"] = r["classes"].get("Unimplemented", 0)
                    rows.append(r)
            return steps
        finally:
            holder.terminate()
            locker.stdin.close()
            locker.terminate()
            for proc in (holder, locker):
                proc.wait(timeout=15)
            refusing.server.terminate()
            refusing.server.wait(timeout=15)

    def ladder(self, target, capacity, gateways, multiples):
        """One run of the ladder: each step against each gateway, interleaved."""
        rows = []
        for multiple in multiples:
            for gateway in gateways:
                r = self.step(target, gateway, capacity * multiple, self.seconds)
                r["multiple"] = multiple
                rows.append(r)
        for gateway in gateways:
            mine = [r for r in rows if r["gateway"] == gateway.name]
            served = served_price(mine)
            for r in mine:
                r["served_us"] = {p: served[p] * 1e6 if served else None for p in ("gateway", "server")}
                refusals = r["refused"]
                if not served:
                    r["refused_us"] = {"gateway": None, "server": None}
                    continue
                extra_gw = r["cpu_s"]["gateway"] - r["ok"] * served["gateway"]  # timed out: priced as refused
                extra_srv = r["cpu_s"]["server"] - r["ok"] * served["server"]
                r["refused_us"] = {
                    "gateway": extra_gw * 1e6 / (refusals + r["timed_out"]) if refusals >= 100 else None,
                    "server": extra_srv * 1e6 / r["delta"]["server_shed"] if r["delta"]["server_shed"] >= 100 else None,
                }
        return rows


def served_price(rows):
    """CPU seconds per served request of gateway and server, at the margin between the two lowest
    steps that served everything (what a step costs whatever its load cancels out, as for
    refusals); the lowest such step's average if only one did; None if none did (a ladder of
    overloaded steps only: the difference of two would price a refusal as a served request)."""
    clean = sorted((r for r in rows if r["success"] >= SERVED_ALL), key=lambda r: r["multiple"])
    if len(clean) >= 2 and clean[1]["ok"] > clean[0]["ok"]:
        low, high = clean[:2]
        return {p: (high["cpu_s"][p] - low["cpu_s"][p]) / (high["ok"] - low["ok"]) for p in ("gateway", "server")}
    if clean:
        return {p: clean[0]["cpu_s"][p] / max(clean[0]["ok"], 1) for p in ("gateway", "server")}
    return None


def fmt_us(value):
    return "-" if value is None or value <= 0 else f"{value:.0f}"


def print_header():
    print(f"  {'gw':>5} {'x C':>4} {'offered':>7} {'/C':>5} {'ok p99':>8} {'ref p50/p99 ms':>14} {'GCs':>5} "
          f"{'GC %':>5} {'gw µs srv/ref':>13} {'srv µs srv/ref':>14} {'gw RSS':>11} {'srv RSS':>7} {'gr':>5} "
          f"{'lg':>4} {'lag':>6}  outcomes", flush=True)


def print_row(r, capacity, limit_mb):
    classes = ", ".join(f"{k} {v}" for k, v in sorted(r["classes"].items()))
    late = f"; late writes {r['late_writes']} of {r['timed_out']} timed out" if r["timed_out"] and r["writes"] else ""
    served, refused = r.get("served_us", {}), r.get("refused_us", {})
    print(f"  {r['gateway']:>5} {r['multiple']:>4g} {r['rate']:>7.0f} {r['goodput'] / capacity:>5.2f} "
          f"{r['ok_p99_ms']:>6.1f}ms {r['refused_p50_ms']:>6.1f}/{r['refused_p99_ms']:<7.1f} "
          f"{r['delta']['gc_cycles']:>5.0f} {r['gc_share'] * 100:>4.0f}% "
          f"{fmt_us(served.get('gateway')):>6}/{fmt_us(refused.get('gateway')):<6} "
          f"{fmt_us(served.get('server')):>7}/{fmt_us(refused.get('server')):<6} "
          f"{r['gateway_rss_mb']:>4.0f}/{limit_mb}M {r['server_rss_mb']:>6.0f}M {r['goroutines']:>5.0f} "
          f"{r['loadgen_cores']:>4.2f} {r['send_lag_p99_ms']:>4.0f}ms  {classes}{late}", flush=True)


def worst(runs):
    """Per gateway and step, the worst value of each figure across runs."""
    out = []
    for rows in zip(*runs):
        w = dict(rows[0])
        w["goodput"] = min(r["goodput"] for r in rows)
        for key in ("ok_p99_ms", "refused_p50_ms", "refused_p99_ms", "gc_share", "gateway_rss_mb",
                    "server_rss_mb", "goroutines", "loadgen_cores", "send_lag_p99_ms", "overran"):
            w[key] = max(r[key] for r in rows)
        w["delta"] = dict(w["delta"], gc_cycles=max(r["delta"]["gc_cycles"] for r in rows))
        for kind in ("served_us", "refused_us"):
            w[kind] = {p: max((r[kind][p] for r in rows if r[kind][p] is not None), default=None)
                       for p in ("gateway", "server")}
        w["classes"] = {"runs": len(rows)}
        w["timed_out"] = sum(r["timed_out"] for r in rows)
        w["late_writes"] = sum(r["late_writes"] for r in rows)
        out.append(w)
    return out


def generator_behind(*rows):
    """A note if the load generator itself fell behind in any of rows: it sent late against its
    schedule, or saw calls end well after their own deadline (it shares the cores)."""
    lag, overran = max(r["send_lag_p99_ms"] for r in rows), max(r["overran"] for r in rows)
    if lag < GENERATOR_LAG_MS and overran == 0:
        return ""
    return (f"  (the generator fell behind: its sends' lag p99 {lag:.0f} ms, {overran} calls seen ending well "
            f"after their deadline)")


def print_goals(label, capacity, rows, pinned, refusal_price):
    verdict = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    print(f"\n  goals for {label} (C = {capacity:.0f}/s), worst run:")
    for gateway in sorted({r["gateway"] for r in rows}, reverse=True):
        by = {r["multiple"]: r for r in rows if r["gateway"] == gateway}
        if not {2, 4} <= set(by):
            continue
        g2, g4 = by[2]["goodput"] / capacity, by[4]["goodput"] / capacity
        print(f"    [{gateway}] goodput >= 0.9 C at 2x and 4x: {g2:.2f} / {g4:.2f}  {verdict(g2 >= 0.9 and g4 >= 0.9)}"
              f"{generator_behind(by[2], by[4])}")
        print(f"    [{gateway}] GC <= 10 % of the gateway's CPU at 4x: {by[4]['gc_share'] * 100:.1f} %  "
              f"{verdict(by[4]['gc_share'] <= 0.10)}")
        for process in ("gateway", "server"):
            refused, served = by[4]["refused_us"][process], by[4]["served_us"][process]
            if process == "gateway" and refusal_price is not None:
                refused = refusal_price  # measured on its own rather than by difference
            if refused is None or refused <= 0 or not served or served <= 0:
                print(f"    [{gateway}] {process}: too few refusals at 4x (or too noisy a machine) to price one")
                continue
            print(f"    [{gateway}] {process}: refused <= 0.1 x served in CPU at 4x: {refused:.0f} / {served:.0f} µs "
                  f"= {refused / served:.2f}  {verdict(refused <= 0.1 * served)}")
        refused_p99 = max(r["refused_p99_ms"] for r in by.values())
        ceiling = 5 if pinned else 25
        print(f"    [{gateway}] refusal p99 <= {ceiling} ms ({'pinned' if pinned else 'shared cores'}): "
              f"{refused_p99:.1f} ms  {verdict(refused_p99 <= ceiling)}")
        print(f"    [{gateway}] peak RSS {max(r['gateway_rss_mb'] for r in by.values()):.0f} MB of "
              f"{container_limit_mb()} MiB")


# Issue 57's checks (--issue57, --burst, --one-client), measured from outside as users load the
# service: from several client addresses, callers giving up at 1 s whether or not they send it.
ISSUE57_TARGETS = "read,get,write,grpc-get,grpc-list"
ISSUE57_MULTIPLES = (2, 4)
GOODPUT_GOALS = {2: 0.9, 4: 0.8}  # of C, at 2 x and 4 x C
REFUSAL_P99_GOAL_MS, SERVED_P99_GOAL_MS, LATE_COMMITS_GOAL = 50, 500, 0.01
# Bursts: BURST_MULTIPLE x C for BURST_FOR every BURST_EVERY, BURST_AVERAGE x C on average.
BURST_MULTIPLE, BURST_FOR, BURST_EVERY, BURST_AVERAGE = 3, 0.2, 1.0, 0.8
BURST_NOT_SERVED_GOAL, BURST_SERVED_P99_GOAL_MS = 0.01, 1000
ONE_CLIENT_MULTIPLE, ONE_CLIENT_GOODPUT_GOAL, EXCESS_REFUSAL_GOAL_MS = 4, 0.8, 10
ANSWERS = ("ok", "refused", "timeout")


def verdict(failed):
    return "met" if not failed else "NOT met: " + ", ".join(failed)


def ms_or_dash(value):
    return "-" if value is None else f"{value:.0f} ms"


def lag_note(rows):
    """The generator's send lag p99 (worst), marked when it fell behind its schedule or its callers'
    deadlines: such a step measures the generator as much as the service."""
    lag, overran = max(r["send_lag_p99_ms"] for r in rows), sum(r["overran"] for r in rows)
    return f"{lag:.0f} ms" + (f" BEHIND ({overran} overran)" if lag >= GENERATOR_LAG_MS or overran else "")


def malformed_refusals(rows):
    """Answers that were neither served, a well-formed refusal (a 503 with Retry-After; gRPC
    UNAVAILABLE 'overloaded'), nor a caller giving up: a 503 without Retry-After, a 5xx, a
    connection closed without an answer, another error."""
    return sum(n for r in rows for k, n in r["classes"].items() if k not in ANSWERS)


def progress(label, r, capacity):
    classes = ", ".join(f"{k} {v}" for k, v in sorted(r["classes"].items()))
    print(f"    {label}: offered {r['sent'] / r['seconds']:.0f}/s, goodput {r['goodput'] / capacity:.2f} C, "
          f"served p99 {r['ok_p99_ms']:.0f} ms, refused p99 {r['refused_p99_ms']:.0f} ms, lag "
          f"{r['send_lag_p99_ms']:.0f} ms; {classes}", flush=True)


def issue57_table(bench, gateway, names, capacities, runs):
    """Each target at 2 x and 4 x C, with its callers' deadline sent and kept, runs times; one row
    per target and deadline, the worst of the runs."""
    rows = []
    for name in names:
        target, capacity = bench.targets[name], capacities[name]
        print(f"\n== {target.label}, C = {capacity:.0f}/s", flush=True)
        for sent in (True, False):
            steps = {m: [] for m in ISSUE57_MULTIPLES}
            for run in range(runs):
                for multiple in ISSUE57_MULTIPLES:
                    r = bench.step(target, gateway, capacity * multiple, bench.seconds, keep_deadline=not sent)
                    progress(f"run {run + 1}, {multiple:g} x C, deadline {'sent' if sent else 'kept'}", r, capacity)
                    steps[multiple].append(r)
            every = [r for m in steps.values() for r in m]
            refused = [r["refused_p99_ms"] for r in every if r["refused"]]
            timed_out = sum(r["timed_out"] for r in every)
            row = {"workload": name, "sent": sent, "refusal_p99": max(refused) if refused else None,
                   "served_p99": max(r["ok_p99_ms"] for r in every), "lag": lag_note(every),
                   "late": (sum(r["late_writes"] for r in every) / timed_out if timed_out else 0.0)
                   if target.writes else None, "late_count": (sum(r["late_writes"] for r in every), timed_out),
                   "malformed": malformed_refusals(every), "grpc": bool(target.grpc)}
            for multiple in ISSUE57_MULTIPLES:
                row[multiple] = min(r["goodput"] for r in steps[multiple]) / capacity
            rows.append(row)
    print(f"\n== Issue 57: open loop from {bench.laddrs or 'the default address'}, callers give up at 1 s, "
          f"{bench.seconds:g} s a step, worst of {runs} run(s)")
    print(f"  goals: goodput >= {GOODPUT_GOALS[2]} C at 2 x, >= {GOODPUT_GOALS[4]} C at 4 x; refusal p99 <= "
          f"{REFUSAL_P99_GOAL_MS} ms; served p99 <= {SERVED_P99_GOAL_MS} ms; late commits <= "
          f"{LATE_COMMITS_GOAL * 100:g} % of the callers that timed out; every refusal a 503 with Retry-After "
          f"(gRPC: UNAVAILABLE)")
    print(f"  {'workload':<9} {'deadline':<8} {'2 x C':>5} {'4 x C':>5} {'refusal p99':>11} {'served p99':>10} "
          f"{'late commits':>17} {'503+RA':>7} {'lag':>6}  goals")
    for row in rows:
        failed = [f"{m:g} x" for m in ISSUE57_MULTIPLES if row[m] < GOODPUT_GOALS[m]]
        if row["refusal_p99"] is not None and row["refusal_p99"] > REFUSAL_P99_GOAL_MS:
            failed.append("refusal p99")
        if row["served_p99"] > SERVED_P99_GOAL_MS:
            failed.append("served p99")
        if row["late"] is not None and row["late"] > LATE_COMMITS_GOAL:
            failed.append("late commits")
        if row["malformed"]:
            failed.append("refusals")
        late = "-" if row["late"] is None else f"{row['late'] * 100:.1f} % ({row['late_count'][0]}/{row['late_count'][1]})"
        well_formed = "yes" if not row["malformed"] else f"no ({row['malformed']})"
        print(f"  {row['workload']:<9} {'sent' if row['sent'] else 'kept':<8} {row[2]:>5.2f} {row[4]:>5.2f} "
              f"{ms_or_dash(row['refusal_p99']):>11} {ms_or_dash(row['served_p99']):>10} {late:>17} "
              f"{well_formed:>7} {row['lag']:>6}  {verdict(failed)}", flush=True)


def burst_base_rate(capacity):
    """The rate between bursts that makes BURST_AVERAGE x C on average."""
    share = BURST_FOR / BURST_EVERY
    return max(0.0, (BURST_AVERAGE - share * BURST_MULTIPLE) * capacity / (1 - share))


def bursts(bench, gateway, names, capacities, runs):
    """Bursts of BURST_MULTIPLE x C for BURST_FOR every BURST_EVERY, callers with 1 s deadlines."""
    print(f"\n== Bursts: {BURST_MULTIPLE} x C for {BURST_FOR * 1000:.0f} ms every {BURST_EVERY:g} s, "
          f"{BURST_AVERAGE} x C on average, callers give up at 1 s (deadline {'kept' if bench.keep_deadline else 'sent'})")
    results = []
    for name in names:
        target, capacity = bench.targets[name], capacities[name]
        extra = ["-burst-rate", f"{BURST_MULTIPLE * capacity:.0f}", "-burst-every", f"{BURST_EVERY}s",
                 "-burst-for", f"{BURST_FOR}s"]
        for run in range(runs):
            r = bench.step(target, gateway, burst_base_rate(capacity), bench.seconds, extra=extra)
            progress(f"{name}, run {run + 1}", r, capacity)
            results.append((name, capacity, r))
    print(f"  goals: <= {BURST_NOT_SERVED_GOAL * 100:g} % refused (callers that timed out counted with them), "
          f"served p99 < {BURST_SERVED_P99_GOAL_MS} ms")
    print(f"  {'workload':<9} {'C':>6} {'avg/C':>5} {'refused':>8} {'timed out':>9} {'served p99':>10} {'lag':>6}  goals")
    for name, capacity, r in results:
        sent = max(r["sent"], 1)
        refused = (r["sent"] - r["ok"] - r["classes"].get("timeout", 0)) / sent
        timed_out = r["classes"].get("timeout", 0) / sent
        failed = (["refused"] if refused + timed_out > BURST_NOT_SERVED_GOAL else []) + (
            ["served p99"] if r["ok_p99_ms"] >= BURST_SERVED_P99_GOAL_MS else [])
        print(f"  {name:<9} {capacity:>6.0f} {r['sent'] / r['seconds'] / capacity:>5.2f} {refused * 100:>7.2f}% "
              f"{timed_out * 100:>8.2f}% {ms_or_dash(r['ok_p99_ms']):>10} {lag_note([r]):>6}  {verdict(failed)}",
              flush=True)


def one_client(bench, gateway, names, capacities, runs, source, conns):
    """One client address offering ONE_CLIENT_MULTIPLE x C over conns connections (more than the
    gateway's share per client): its goodput, and how fast the excess is refused (a 503 with
    Retry-After, or a connection closed without an answer: refused-conn)."""
    print(f"\n== One client ({source}) offering {ONE_CLIENT_MULTIPLE} x C over up to {conns} connections "
          f"(deadline {'kept' if bench.keep_deadline else 'sent'})")
    results = []
    for name in names:
        target, capacity = bench.targets[name], capacities[name]
        if target.grpc:
            print(f"  {name}: skipped (gRPC goes to the server directly; the connection share is the gateway's)")
            continue
        for run in range(runs):
            r = bench.step(target, gateway, ONE_CLIENT_MULTIPLE * capacity, bench.seconds, laddrs=source,
                           client_conns=conns)
            progress(f"{name}, run {run + 1}", r, capacity)
            results.append((name, capacity, r))
    print(f"  goals: goodput >= {ONE_CLIENT_GOODPUT_GOAL} C; the excess refused within {EXCESS_REFUSAL_GOAL_MS} ms (p99)."
          f" 'conns': the connections the client needed (the most calls waiting at once, up to {conns}); under "
          "the gateway's share (256 by default), there was no excess to refuse")
    print(f"  {'workload':<9} {'C':>6} {'/C':>5} {'conns':>5} {'503s':>6} {'503 p99':>8} {'conns cut':>9} {'cut p99':>8} "
          f"{'timed out':>9} {'lag':>6}  goals")
    for name, capacity, r in results:
        refused_p99 = r["refused_p99_ms"] if r["refused"] else None
        cut_p99 = r["refused_conn_p99_ms"] if r["refused_conn"] else None
        slowest = max((p for p in (refused_p99, cut_p99) if p is not None), default=None)
        failed = (["goodput"] if r["goodput"] / capacity < ONE_CLIENT_GOODPUT_GOAL else []) + (
            ["excess refusal p99"] if slowest is not None and slowest > EXCESS_REFUSAL_GOAL_MS else [])
        print(f"  {name:<9} {capacity:>6.0f} {r['goodput'] / capacity:>5.2f} {min(r['peak_in_flight'], conns):>5} {r['refused']:>6} "
              f"{ms_or_dash(refused_p99):>8} {r['refused_conn']:>9} {ms_or_dash(cut_p99):>8} "
              f"{r['classes'].get('timeout', 0):>9} {lag_note([r]):>6}  {verdict(failed)}", flush=True)


def pin_stack(stack, gateways, cpu):
    """Moves the server, the gateways and every PostgreSQL process onto one CPU."""
    pids = [stack.server.pid] + [g.proc.pid for g in gateways]
    with open(os.path.join(stack.pg_data, "postmaster.pid")) as f:
        postmaster = f.readline().strip()
    pids.append(int(postmaster))
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[1] == postmaster:
                    pids.append(int(pid))
        except (OSError, IndexError):
            continue
    for pid in pids:
        subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), str(pid)], check=True, capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5, help="length of each load step")
    parser.add_argument("--probe-seconds", type=float, default=3, help="length of each capacity probe")
    parser.add_argument("--runs", type=int, default=3, help="runs of the ladder; the worst is reported")
    parser.add_argument("--targets", help="default read,get,write; with --issue57, --burst or --one-client "
                        + ISSUE57_TARGETS)
    parser.add_argument("--server-args", default="", help="extra hotel-server flags")
    parser.add_argument("--gateway-args", default="", help="extra hotel-gateway flags (both gateways)")
    parser.add_argument("--gateway-env", default="", help="extra gateway environment, e.g. 'GOMEMLIMIT=20MiB GOGC=150'")
    parser.add_argument("--capacity", default="", help="C per target instead of searching, e.g. read=1200,get=3000")
    parser.add_argument("--multiples", default=",".join(str(m) for m in MULTIPLES), help="steps, in multiples of C")
    parser.add_argument("--age-requests", type=int, default=1_000_000, help="requests the aged gateway serves first")
    parser.add_argument("--no-aged", action="store_true", help="only the fresh gateway")
    parser.add_argument("--callers", type=int, default=6000, help="concurrent callers of the connection check (0: none)")
    parser.add_argument("--refusal-rates", default="",
                        help="LOW,HIGH: price a refusal between these rates (default 2/3 C and 2 C); a refusing gateway "
                             "at 4 x C refuses ~3 C a second, and at low rates each request pays the runtime's wake-up")
    parser.add_argument("--client-conns", type=int, default=0,
                        help="the open-loop callers share at most this many connections, as a client's pool (0: a "
                             "connection per waiting call, dialled when none is idle)")
    parser.add_argument("--laddrs", default="127.0.0.20-27",
                        help="client source addresses of the open loop (loadgen -laddrs; '': the system's choice)")
    parser.add_argument("--keep-deadline", action="store_true",
                        help="callers give up at 1 s without sending their deadline (--issue57 runs both)")
    parser.add_argument("--issue57", action="store_true", help="issue 57's table: each target at 2 x and 4 x C, "
                        "deadline sent and kept (fresh gateway only, no issue-40 ladder)")
    parser.add_argument("--burst", action="store_true", help=f"bursts of {BURST_MULTIPLE} x C for "
                        f"{BURST_FOR * 1000:.0f} ms every {BURST_EVERY:g} s")
    parser.add_argument("--one-client", action="store_true", help=f"one client address offering "
                        f"{ONE_CLIENT_MULTIPLE} x C over --one-client-conns connections")
    parser.add_argument("--one-client-conns", type=int, default=400,
                        help="connections of --one-client (the gateway's share per client is 256 by default)")
    parser.add_argument("--pin", action="store_true", help="load generator on CPU 0, server, gateways, PostgreSQL on 1")
    parser.add_argument("--gateway-nice", type=int, help="the gateways' nice value (every thread; negative: a "
                        "larger share of a busy core than the server and PostgreSQL, as a container's CPU weight)")
    args = parser.parse_args()
    issue57_modes = args.issue57 or args.burst or args.one_client
    args.targets = args.targets or (ISSUE57_TARGETS if issue57_modes else "read,get,write")
    if issue57_modes:
        args.no_aged = True
        # scripts/up.sh's defaults: the access log and the server's call log sampled, not every request.
        os.environ.setdefault("GATEWAY_ACCESS_LOG", "sampled")
        os.environ.setdefault("RPC_LOG_SAMPLE", "100")
    subprocess.run(["go", "build", "-o", LOADGEN, "."], cwd=os.path.join(ROOT, "tests", "perf", "loadgen"), check=True)
    port = int(os.environ.get("HOTEL_PG_PORT", "54329"))
    _, cluster = start_cluster(port, os.path.join(ROOT, ".local"))
    stack = Stack(cluster, f"hotel_overload_bench_{os.getpid()}")
    gateways = []
    try:
        stack.create_database()
        stack.migrate()
        stack.start_server(extra_args=args.server_args.split())
        for assignment in args.gateway_env.split():
            name, value = assignment.split("=", 1)
            os.environ[name] = value
        for name in ("fresh",) + (() if args.no_aged else ("aged",)):
            stack.http_port = free_port()
            os.environ["GATEWAY_PPROF_ADDR"] = pprof = f"127.0.0.1:{free_port()}"
            stack.start_gateway(extra_args=args.gateway_args.split())
            gateways.append(Gateway(name, stack.gateway, stack.root, stack.metrics_url))
            gateways[-1].pprof = pprof
        del os.environ["GATEWAY_PPROF_ADDR"]
        refuser = None
        if not issue57_modes:
            # A third gateway that refuses every request (no slot at all), to price a refusal on its own.
            stack.http_port = free_port()
            stack.start_gateway(extra_args=args.gateway_args.split() + [
                "--max-in-flight", "0"])
            refuser = Gateway("refuser", stack.gateway, stack.root, stack.metrics_url)
        stack.wait_ready()
        stack.pg_data = os.path.join(ROOT, ".local", "pgdata")
        capacities = {k: float(v) for k, v in (kv.split("=") for kv in args.capacity.split(",") if kv)}
        if args.pin:
            pin_stack(stack, gateways + [refuser] if refuser else gateways, 1)
        if args.gateway_nice is not None:
            for gateway in gateways + [refuser] if refuser else gateways:
                for thread in os.listdir(f"/proc/{gateway.proc.pid}/task"):
                    os.setpriority(os.PRIO_PROCESS, int(thread), args.gateway_nice)
        bench = Bench(stack, args)
        bench.refuser, bench.gateways = refuser, gateways
        multiples = [float(m) for m in args.multiples.split(",")]
        limit_mb = container_limit_mb()
        print(f"server: {args.server_args or 'defaults'}; gateways: {args.gateway_args or 'defaults'} "
              f"{args.gateway_env}; open loop from {args.laddrs or 'the default address'}, callers' timeout 1 s "
              f"({'kept' if args.keep_deadline else 'sent'}), {args.seconds:g} s a step, {args.runs} runs"
              f"{'; pinned' if args.pin else ''}", flush=True)
        names = args.targets.split(",")
        for name in names:
            if name not in capacities:
                print(f"\n== C of {bench.targets[name].label}", flush=True)
                bench.step(bench.targets[name], gateways[0], 300, 2)  # warm-up
                capacities[name] = bench.find_capacity(bench.targets[name], gateways[0])
        if issue57_modes:
            print("\n  C: " + ", ".join(f"{name} {capacities[name]:.0f}/s" for name in names), flush=True)
            if args.issue57:
                issue57_table(bench, gateways[0], names, capacities, args.runs)
            if args.burst:
                bursts(bench, gateways[0], names, capacities, args.runs)
            if args.one_client:
                source = args.laddrs.split(",")[0].split("-")[0] or "127.0.0.1"
                one_client(bench, gateways[0], names, capacities, args.runs, source, args.one_client_conns)
            return
        if len(gateways) > 1:
            print("\n== Ageing the second gateway", flush=True)
            bench.age(gateways[1], args.age_requests, 8 * capacities.get("read", 1000))
        summary, prices, all_runs = {}, {}, {}
        for name in names:
            target, capacity = bench.targets[name], capacities[name]
            print(f"\n== {target.label}, C = {capacity:.0f}/s", flush=True)
            runs, through = [], gateways[:1] if target.grpc else gateways  # gRPC: no gateway to compare
            for run in range(args.runs):
                print(f"  run {run + 1}", flush=True)
                print_header()
                rows = bench.ladder(target, capacity, through, multiples)
                for r in rows:
                    print_row(r, capacity, limit_mb)
                runs.append(rows)
                if not target.grpc:
                    low, high = ([float(x) for x in args.refusal_rates.split(",")] if args.refusal_rates
                                 else (None, 2 * capacity))
                    price, r = bench.refusal_price(target, high, low)
                    prices.setdefault(name, []).append(price)
                    print(f"  refusal price: {price:.0f} µs of gateway CPU per refusal ({r['refused']} refused at "
                          f"{high:.0f}/s by a gateway without slots), "
                          f"refusal p50/p99 "
                          f"{r['refused_p50_ms']:.1f}/{r['refused_p99_ms']:.1f} ms", flush=True)
            summary[name], all_runs[name] = worst(runs), runs
            print("  worst of the runs", flush=True)
            print_header()
            for r in summary[name]:
                print_row(r, capacity, limit_mb)
        server_prices, floors = [], []
        if "get" in summary:
            print("\n== The server's refusal, on its own (gRPC GetRoom to a server whose one slot is held)", flush=True)
            # The median of the runs' served prices (the fresh gateway's; priced at the margin, one may be noise).
            served_us = statistics.median([r["served_us"]["server"] for rows in all_runs["get"] for r in rows
                                           if r["gateway"] == "fresh" and r["multiple"] == min(multiples)
                                           and r["served_us"]["server"]] or [float("nan")])
            for run in range(args.runs):
                (low, high), (floor_low, floor_high) = bench.server_refusal_price(capacities["get"] * 2 / 3,
                                                                                   capacities["get"] * 4)
                if low["ok"] + high["ok"] > 0.01 * (low["refused"] + high["refused"]):
                    print(f"  run {run + 1}: the slot was not held ({low['ok']} / {high['ok']} calls served): "
                          "not priced", flush=True)
                    continue
                price = ((high["cpu_s"] - low["cpu_s"]) - (high["ok"] - low["ok"]) * served_us / 1e6) * 1e6 / max(
                    high["refused"] - low["refused"], 1)
                floor = (floor_high["cpu_s"] - floor_low["cpu_s"]) * 1e6 / max(
                    floor_high["unimplemented"] - floor_low["unimplemented"], 1)
                server_prices.append(price)
                floors.append(floor)
                print(f"  run {run + 1}: {price:.1f} µs of server CPU per refusal ({low['refused']} / {high['refused']} "
                      f"refused and {low['ok']} / {high['ok']} served at {low['rate']:.0f} / {high['rate']:.0f}/s; "
                      f"refusal p50/p99 {high['refused_p50_ms']:.1f}/{high['refused_p99_ms']:.1f} ms); gRPC's floor, "
                      f"a call answered UNIMPLEMENTED by gRPC itself: {floor:.1f} µs ({floor_low['unimplemented']} / "
                      f"{floor_high['unimplemented']} answered)", flush=True)
        if args.callers:
            print(f"\n== {args.callers} concurrent callers against the fresh gateway", flush=True)
            bench.callers(bench.targets["get"], gateways[0], args.callers, args.seconds * 2)
        print("\n== Goals (issue 40)")
        for name in names:
            print_goals(bench.targets[name].label, capacities[name], summary[name], args.pin,
                        max(prices[name]) if name in prices else None)
        if server_prices:
            print(f"  server: refused <= 0.1 x served cached GetRoom in CPU (worst of {len(server_prices)}): "
                  f"{max(server_prices):.1f} / {served_us:.0f} µs = {max(server_prices) / served_us:.3f}  "
                  f"{'met' if max(server_prices) <= 0.1 * served_us else 'NOT met'}; gRPC's own floor (an "
                  f"UNIMPLEMENTED answer, median of the runs) {statistics.median(floors):.1f} µs = "
                  f"{statistics.median(floors) / served_us:.3f} x served: a refusal costs "
                  f"{max(server_prices) - statistics.median(floors):+.1f} µs beyond it")
    finally:
        for gateway in gateways:  # the stack stops the last one it started, the refuser
            gateway.proc.terminate()
            gateway.proc.wait(timeout=15)
        stack.stop()


if __name__ == "__main__":
    main()
