"""A rolling restart under load drops nothing. Two "pods" (a server and a gateway each) serve one
database behind a balancer that behaves like a Kubernetes Service (tests/e2e/balancer: round-robin
over ready endpoints, learning of readiness and termination a second late). Open-loop reads and
writes (with request_id) and a change-feed watcher (SSE, resuming with Last-Event-ID) go through
the balancer while each pod in turn gets SIGTERM on both processes at once, as Kubernetes sends
it, and a new pod takes its place. No request may fail, every acknowledged write is stored once,
and the watcher sees every change exactly once, in order."""
import http.client
import json
import os
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import uuid

import pytest

from conftest import start_cluster
from stack import BIN, PG_DIR, PG_PORT, Stack, _read_address, wait_for

LAG = 1.0               # how late the balancer learns of changes (Kubernetes: a second or more)
GATEWAY_DELAY = "2s"    # each longer than the lag, the server's longer than its gateway's
SERVER_DELAY = "3s"
READS_PER_SECOND = 40
WRITES_PER_SECOND = 20


class Pod:
    """A server and a gateway on one database, with the shutdown delays of the test."""

    def __init__(self, cluster, database):
        self.stack = Stack(cluster, database)

    def start(self):
        self.stack.start_server(extra_args=["--shutdown-delay", SERVER_DELAY])
        self.stack.start_gateway(extra_args=["--shutdown-delay", GATEWAY_DELAY])
        self.stack.wait_ready()
        return self

    @property
    def url(self):
        return self.stack.root

    def terminate(self):
        """SIGTERM to both processes at the same moment, as the kubelet does."""
        self.signalled = time.monotonic()
        for proc in (self.stack.server, self.stack.gateway):
            proc.send_signal(signal.SIGTERM)

    def wait_exit(self, timeout=30):
        """Seconds from SIGTERM to exit, per process."""
        exits = {}
        for name, proc in (("gateway", self.stack.gateway), ("server", self.stack.server)):
            proc.wait(timeout=timeout)
            exits[name] = time.monotonic() - self.signalled
            assert proc.returncode == 0, (name, proc.returncode)
        return exits


class Balancer:
    def __init__(self):
        self.proc = subprocess.Popen([os.path.join(BIN, "test-balancer"), "-lag", f"{LAG}s"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.root = _read_address(self.proc, r"listening on (http://\S+)")

    def control(self, verb, endpoint=None):
        query = "?" + urllib.parse.urlencode({"endpoint": endpoint}) if endpoint else ""
        method = "GET" if verb == "endpoints" else "POST"
        with urllib.request.urlopen(urllib.request.Request(f"{self.root}/_lb/{verb}{query}", method=method),
                                    timeout=5) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def add(self, pod):
        self.control("add", pod.url)
        assert wait_for(lambda: self.control("endpoints").get(pod.url) == "routed", 10)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


class Load:
    """Open-loop reads and writes through the balancer: each request starts on schedule in its
    own thread, whatever the others are doing."""

    def __init__(self, root):
        self.host = urllib.parse.urlparse(root).netloc
        self.lock = threading.Lock()
        self.sent = self.ok = 0
        self.failures = []
        self.acknowledged = []  # request_ids answered 201
        self.stopping = threading.Event()
        self.threads = []

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.host, timeout=10)
        try:
            conn.request(method, path, body=json.dumps(body) if body else None,
                         headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def one(self, write):
        request_id = uuid.uuid4().hex
        try:
            if write:
                status, text = self.request("POST", "/api/v1/issues", {
                    "property_id": "BER1", "room_number": "102", "title": "rollout", "category": "PLUMBING",
                    "reported_by": "rollout-test", "request_id": request_id})
            else:
                status, text = self.request("GET", "/api/v1/rooms/101?property_id=BER1")
        except OSError as err:
            status, text = None, str(err).encode()
        with self.lock:
            self.sent += 1
            if status in (200, 201):
                self.ok += 1
                if write:
                    self.acknowledged.append(request_id)
            else:
                self.failures.append((time.monotonic(), "write" if write else "read", status, text[:200]))

    def run(self):
        start, n = time.monotonic(), 0
        total_rate = READS_PER_SECOND + WRITES_PER_SECOND
        while not self.stopping.is_set():
            due = start + n / total_rate
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            thread = threading.Thread(target=self.one, args=(n % total_rate < WRITES_PER_SECOND,), daemon=True)
            thread.start()
            self.threads.append(thread)
            n += 1

    def start(self):
        self.runner = threading.Thread(target=self.run, daemon=True)
        self.runner.start()

    def stop(self):
        self.stopping.set()
        self.runner.join()
        for thread in self.threads:
            thread.join(timeout=15)


class Watcher:
    """An SSE consumer through the balancer that resumes from its last event id when its stream
    ends, as an EventSource does."""

    def __init__(self, root):
        self.host = urllib.parse.urlparse(root).netloc
        self.ids = []
        self.start_cursor = None
        self.reconnects = 0
        self.errors = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        last = None
        while not self.stopping.is_set():
            conn = http.client.HTTPConnection(self.host, timeout=30)
            try:
                headers = {"Accept": "text/event-stream"}
                if last:
                    headers["Last-Event-ID"] = last
                conn.request("GET", "/api/v1/changes/stream", headers=headers)
                resp = conn.getresponse()
                if resp.status != 200:
                    self.errors.append((resp.status, resp.read()[:200]))
                    time.sleep(0.2)
                    continue
                while not self.stopping.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    line = line.decode().rstrip("\n")
                    if line.startswith(": heartbeat ") and self.start_cursor is None:
                        self.start_cursor = line.split()[-1]
                        last = last or self.start_cursor
                    elif line.startswith("id: "):
                        last = line[4:]
                        self.ids.append(last)
                    elif line.startswith("event: error"):
                        break  # the pod is going away; resume elsewhere from `last`
            except OSError as err:
                self.errors.append(("connection", str(err)))
                time.sleep(0.2)
            finally:
                conn.close()
            if not self.stopping.is_set():
                self.reconnects += 1

    def start(self):
        self.thread.start()
        assert wait_for(lambda: self.start_cursor is not None, 10)

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=35)


def listed_changes(root, after):
    """Every change after the cursor, paged with GET /changes."""
    cursors = []
    while True:
        with urllib.request.urlopen(f"{root}/api/v1/changes?after={urllib.parse.quote(after)}&page_size=1000",
                                    timeout=10) as resp:
            page = json.load(resp)
        cursors += [change["cursor"] for change in page["data"]]
        if not page["data"]:
            return cursors
        after = page["next_cursor"]


@pytest.fixture
def cluster():
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    return cluster


def test_a_rolling_restart_under_load_drops_nothing(cluster):
    database = f"hotel_rollout_{os.getpid()}"
    first = Stack(cluster, database)
    first.create_database()
    first.migrate()
    pods = [Pod(cluster, database).start(), Pod(cluster, database).start()]
    balancer = Balancer()
    load = watcher = None
    try:
        for pod in pods:
            balancer.add(pod)
        watcher = Watcher(balancer.root)
        watcher.start()
        load = Load(balancer.root)
        load.start()
        time.sleep(2)
        timings = []
        for i, old in enumerate(list(pods)):
            old.terminate()
            balancer.control("terminate", old.url)
            new = Pod(cluster, database).start()
            balancer.add(new)
            pods[i] = new
            timings.append(old.wait_exit())
        time.sleep(2)
        load.stop()
        # The last changes reach the watcher: as many as the feed lists.
        assert wait_for(lambda: len(watcher.ids) >= len(listed_changes(balancer.root, watcher.start_cursor)), 30)
        watcher.stop()

        print(f"\nrollout: {load.sent} requests, {len(load.failures)} failed, {len(load.acknowledged)} writes "
              f"acknowledged, {len(watcher.ids)} changes seen, {watcher.reconnects} watcher reconnects; "
              f"seconds from SIGTERM to exit: {timings}")
        assert load.failures == []
        assert load.sent >= 10 * (READS_PER_SECOND + WRITES_PER_SECOND)
        # Every acknowledged write is stored once (and nothing else was written by the test).
        stored = first.psql("SELECT request_id, count(*) FROM issues WHERE reported_by = 'rollout-test' "
                            "GROUP BY 1 HAVING count(*) > 0")
        counts = dict(line.split("|") for line in stored.splitlines())
        assert {k: int(v) for k, v in counts.items()} == {r: 1 for r in load.acknowledged}
        # The watcher saw every change exactly once, in order, across the restarts.
        assert watcher.reconnects >= 1, watcher.errors  # its pod was restarted under it
        assert watcher.ids == listed_changes(balancer.root, watcher.start_cursor)
        assert len(watcher.ids) >= len(load.acknowledged)
        # Each process left in time: after its delay, well before Kubernetes' grace period.
        for exits in timings:
            assert exits["gateway"] >= 2 and exits["server"] >= 3, exits
            assert max(exits.values()) < 25, exits
    finally:
        if load:
            load.stopping.set()
        if watcher:
            watcher.stopping.set()
        balancer.stop()
        for pod in pods:
            pod.stack.stop(keep_database=True)
        first.stop()
