"""A mixed read/write load for fault tests: reader threads fetch rooms and list issues, writer
threads report issues, each with its own request_id, and retry a failed write with the same
request_id until it is acknowledged. Afterwards the database is checked against what the clients
were told: every acknowledged write is there, exactly once."""
import collections
import threading
import time
import uuid


class MixedLoad:
    def __init__(self, stack, readers=3, writers=3, timeout=5):
        self.stack, self.timeout = stack, timeout
        self.readers, self.writers = readers, writers
        self.lock = threading.Lock()
        self.outcomes = collections.Counter()  # "read 200", "write 503", "write error" ...
        self.slowest_failure = 0.0
        self.acked = {}     # request_id -> issue id from the 201 answer
        self.pending = []   # request_ids whose write was not acknowledged yet
        self.stopping = threading.Event()
        self.threads = []
        self.run_tag = uuid.uuid4().hex[:8]

    def start(self):
        for i in range(self.readers):
            self.threads.append(threading.Thread(target=self._read, args=(i,), daemon=True))
        for _ in range(self.writers):
            self.threads.append(threading.Thread(target=self._write, daemon=True))
        for t in self.threads:
            t.start()
        return self

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(timeout=30)

    def __enter__(self, warm_up=20, timeout=30):
        """`with MixedLoad(stack) as load:` runs the block under load, after a warm-up: until every
        reader and writer has been answered warm_up times on average."""
        self.start()
        assert self.wait_served(warm_up * (self.readers + self.writers), timeout), self.outcomes
        return self

    def served(self):
        """How many requests were answered 200 or 201 so far."""
        with self.lock:
            return sum(n for k, n in self.outcomes.items() if k.endswith((" 200", " 201")))

    def failed(self):
        """How many requests failed so far."""
        with self.lock:
            return sum(n for k, n in self.outcomes.items() if not k.endswith((" 200", " 201")))

    def wait_served(self, more, timeout):
        """True once `more` requests beyond those served so far are answered 200 or 201."""
        target = self.served() + more
        deadline = time.time() + timeout
        while self.served() < target:
            if time.time() > deadline:
                return False
            time.sleep(0.02)
        return True

    def wait_failed(self, more, timeout):
        """True once `more` requests beyond those failed so far have failed."""
        target = self.failed() + more
        deadline = time.time() + timeout
        while self.failed() < target:
            if time.time() > deadline:
                return False
            time.sleep(0.02)
        return True

    def __exit__(self, *exc):
        self.stop()

    def failures(self):
        """The outcomes that were not 200/201, e.g. {"read 503", "write ConnectionRefusedError"}."""
        return {k for k in self.outcomes if not k.endswith((" 200", " 201"))}

    def _record(self, kind, outcome, elapsed):
        with self.lock:
            self.outcomes[f"{kind} {outcome}"] += 1
            if outcome != 200 and outcome != 201:
                self.slowest_failure = max(self.slowest_failure, elapsed)

    def _call(self, kind, method, path, body=None):
        started = time.time()
        try:
            resp = self.stack.request(method, path, body=body, timeout=self.timeout)
            outcome = resp.status
        except OSError as err:  # refused, reset or timed out: the kind is what matters
            reason = getattr(err, "reason", err)  # urllib wraps socket errors in URLError
            resp, outcome = None, type(reason if isinstance(reason, BaseException) else err).__name__
        self._record(kind, outcome, time.time() - started)
        return resp

    def _read(self, i):
        paths = ["/rooms/101?property_id=BER1", "/rooms?floor=1", "/issues?page_size=5"]
        while not self.stopping.is_set():
            self._call("read", "GET", paths[i % len(paths)])
            i += 1

    def write_once(self, request_id):
        resp = self._call("write", "POST", "/issues", {
            "property_id": "BER1", "room_number": "102", "title": f"load {request_id}", "category": "OTHER",
            "priority": "LOW", "reported_by": f"load-{self.run_tag}", "request_id": request_id})
        if resp is not None and resp.status in (200, 201):
            with self.lock:
                previous = self.acked.setdefault(request_id, resp.json["id"])
            assert previous == resp.json["id"], f"retry of {request_id} answered another issue"
            return True
        return False

    def _write(self):
        while not self.stopping.is_set():
            with self.lock:
                request_id = self.pending.pop() if self.pending else str(uuid.uuid4())
            if not self.write_once(request_id):
                with self.lock:
                    self.pending.append(request_id)
                time.sleep(0.05)

    def settle(self, deadline=30):
        """Retries every unacknowledged write (same request_id) until all are acknowledged."""
        end = time.time() + deadline
        while self.pending and time.time() < end:
            request_id = self.pending.pop()
            if not self.write_once(request_id):
                self.pending.append(request_id)
                time.sleep(0.1)
        assert not self.pending, f"{len(self.pending)} writes never acknowledged"

    def verify_writes(self):
        """Every acknowledged write is stored once; returns the number verified."""
        rows = self.stack.psql(f"SELECT request_id, id FROM issues WHERE reported_by = 'load-{self.run_tag}'")
        stored = collections.Counter()
        ids = {}
        for line in rows.splitlines():
            request_id, issue_id = line.split("|")
            stored[request_id] += 1
            ids[request_id] = issue_id
        duplicated = [r for r, n in stored.items() if n > 1]
        assert not duplicated, f"retries duplicated writes: {duplicated[:5]}"
        missing = [r for r in self.acked if r not in ids]
        assert not missing, f"acknowledged writes lost: {missing[:5]}"
        wrong = [r for r, issue_id in self.acked.items() if str(ids[r]) != str(issue_id)]
        assert not wrong, f"acknowledged ids differ from stored ones: {wrong[:5]}"
        return len(self.acked)

    def report(self, title):
        counts = ", ".join(f"{k}: {v}" for k, v in sorted(self.outcomes.items(), key=lambda kv: str(kv[0])))
        return (f"{title}: {sum(self.outcomes.values())} requests ({counts}); "
                f"slowest failure {self.slowest_failure:.2f} s; {len(self.acked)} acknowledged writes verified")
