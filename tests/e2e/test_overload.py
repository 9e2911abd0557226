"""Overload through the real gateway, server and PostgreSQL: a burst far beyond what a small pool
can serve within its deadline gets 503s with Retry-After and the OVERLOADED error body, no later
than the deadline, while the admitted requests succeed and the probes stay up; a request whose deadline cannot be met gets 504 and
writes nothing; a request whose caller left does not run its statements; and the service answers
normally right after the burst.

Slow statements are made by a psql session holding the issues table locked: every issue write
waits for it, as it would for a database that has fallen behind."""
import concurrent.futures
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

from conftest import local_stack
from stack import wait_for
from test_observability import scrape, value

POOL = 2
SERVER_LIMIT = 3  # one more than the pool: the third admitted call waits for a connection
SERVER_QUEUE = 2
GATEWAY_LIMIT = 4  # below the server's slots + queue, so that both layers refuse
ISSUES_ROUTE = "/api/v1/issues"


@pytest.fixture
def stack():
    """A stack for each test: a burst leaves the server's smoothed hold time behind it."""
    stack = local_stack("hotel_overload",
                        server_args=["--pool-size", str(POOL), "--max-in-flight", str(SERVER_LIMIT),
                                     "--admission-queue", str(SERVER_QUEUE), "--pool-acquire-timeout", "5s"],
                        gateway_args=["--max-in-flight", str(GATEWAY_LIMIT)])
    yield stack
    stack.stop()


class TableLock:
    """Holds the issues table locked from a psql session until released: issue writes wait."""

    def __init__(self, stack):
        self.proc = subprocess.Popen(["psql", stack.owner_url, "-qAt", "-v", "ON_ERROR_STOP=1"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.proc.stdin.write("BEGIN; LOCK TABLE issues IN ACCESS EXCLUSIVE MODE; SELECT 'locked';\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "locked"

    def release(self):
        if self.proc.poll() is None:
            self.proc.stdin.write("COMMIT;\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


def new_issue(request_id, title="overload"):
    return {"property_id": "BER1", "room_number": "101", "title": title, "category": "PLUMBING",
            "reported_by": "overload-test", "request_id": request_id}


def stored(stack, request_ids):
    """How many issues each request id stored (read as the owner, outside the service)."""
    if not request_ids:
        return {}
    ids = ",".join(f"'{r}'" for r in request_ids)
    rows = stack.psql(f"SELECT request_id, count(*) FROM issues WHERE request_id IN ({ids}) GROUP BY 1")
    return {line.split("|")[0]: int(line.split("|")[1]) for line in rows.splitlines() if line}


def server_idle(stack):
    """True when the server runs and queues no call: a write still under way has committed or
    rolled back."""
    samples = scrape(stack)
    return value(samples, "hotel_server_requests_in_flight") == 0 and \
        value(samples, "hotel_server_requests_queued") == 0


def wait_until_idle(stack):
    assert wait_for(lambda: server_idle(stack), 10), "calls still running on the server"


def in_flight(stack):
    return value(scrape(stack), "hotel_server_requests_in_flight")


def gateway_answered(stack, method, route):
    """How many requests the gateway has answered for a route, whatever their status."""
    return sum(v for (name, labels), v in scrape(stack).items()
               if name == "hotel_gateway_requests_total" and dict(labels).get("method") == method
               and dict(labels).get("route") == route)


def health_probe(stack):
    return stack.tool("grpc-health-probe", "-addr", stack.grpc_addr, "-service", "", "-connect-timeout", "2s",
                      "-rpc-timeout", "2s")


def test_a_burst_that_cannot_be_served_in_its_deadline_is_refused_and_the_admitted_succeed(stack):
    """The gateway refuses what cannot be served within its deadline (docs/deadlines-and-retries.md):
    with the writes blocked, the requests beyond its slots wait and are refused 503 by their
    deadline, not answered late; those admitted are written once the lock is released."""
    before = scrape(stack)
    lock = TableLock(stack)
    burst = 60
    request_ids = [uuid.uuid4().hex for _ in range(burst)]
    results = {}
    answered_while_locked = []

    def post(request_id):
        resp = stack.post("/issues", new_issue(request_id), headers={"Grpc-Timeout": "2S"}, timeout=30)
        results[request_id] = resp
        if lock.proc.poll() is None:
            answered_while_locked.append(request_id)

    with concurrent.futures.ThreadPoolExecutor(max_workers=burst) as pool:
        futures = [pool.submit(post, r) for r in request_ids]
        # Every request not holding a gateway slot is answered by its deadline.
        assert wait_for(lambda: len(results) >= burst - GATEWAY_LIMIT, 20), len(results)
        # While the burst waits on the lock, the probes answer and say the process is fine.
        assert stack.get("/health/live", timeout=2).status == 200
        assert stack.get("/health", timeout=2).status == 200
        assert stack.get("/health/startup", timeout=2).status == 200
        probe = health_probe(stack)
        assert probe.returncode == 0 and "SERVING" in probe.stdout + probe.stderr
        # Refused (503) or, when the deadline ran out as the wait ended, 504: by the deadline either way.
        refused_before_release = [r for r in answered_while_locked if results[r].status in (503, 504)]
        lock.release()
        for f in futures:
            f.result()

    statuses = sorted(resp.status for resp in results.values())
    created = [r for r, resp in results.items() if resp.status == 201]
    refused = [resp for resp in results.values() if resp.status == 503]
    # The admitted ones run out their deadline on the lock (504) or are written after it (201).
    assert set(statuses) <= {201, 503, 504}, statuses
    # Refused by their deadline while the lock held, not answered late: those that got a slot as
    # the admitted ran out their deadlines got 504 instead.
    assert len(refused_before_release) >= burst // 2, statuses
    assert len(answered_while_locked) >= burst - GATEWAY_LIMIT, statuses
    for resp in refused:
        assert resp.headers["Retry-After"] == "1", resp.headers
        assert resp.reason() == "OVERLOADED" and resp.json["code"] == 14, resp
    # Written ones are stored once; refused ones not at all.
    wait_until_idle(stack)
    counts = stored(stack, request_ids)
    assert all(counts.get(r) == 1 for r in created) and all(counts.get(r, 0) <= 1 for r in request_ids)
    # Refused by whichever layer could not serve them in time: the gateway while its slots were
    # held, the server beyond its own slots and queue.
    after = scrape(stack)
    shed = sum(value(after, name, **labels) - value(before, name, **labels)
               for name, labels in (("hotel_gateway_requests_shed_total", {}),
                                    ("hotel_server_requests_shed_total", {"reason": "queue_full"}),
                                    ("hotel_server_requests_shed_total", {"reason": "budget"}),
                                    ("hotel_server_requests_shed_total", {"reason": "queue_timeout"})))
    assert shed >= len(refused), (shed, len(refused))


def test_after_a_burst_the_service_answers_normally(stack):
    lock = TableLock(stack)
    with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
        futures = [pool.submit(stack.post, "/issues", new_issue(uuid.uuid4().hex), timeout=30) for _ in range(30)]
        assert wait_for(lambda: sum(f.done() for f in futures) + in_flight(stack) >= 30, 20)
        lock.release()
        # Waiting calls are refused (503) once their deadline cannot be met; admitted ones that ran
        # out their deadline on the lock answer 504 and wrote nothing.
        assert {f.result().status for f in futures} <= {201, 503, 504}
    # Nothing is left queued: the next reads and writes are served at once (a 1 s client timeout).
    assert stack.get("/rooms?property_id=BER1&floor=1", timeout=1).status == 200
    assert stack.post("/issues", new_issue(uuid.uuid4().hex), timeout=1).status == 201
    # A body whose caller's deadline passed may still be finishing its statement: it is soon done.
    assert wait_for(lambda: value(scrape(stack), "hotel_server_requests_in_flight") == 0, 5)
    assert value(scrape(stack), "hotel_server_requests_queued") == 0


def test_a_request_that_cannot_meet_its_deadline_gets_504_and_writes_nothing(stack):
    lock = TableLock(stack)
    request_id = uuid.uuid4().hex
    try:
        started = time.monotonic()
        resp = stack.post("/issues", new_issue(request_id), headers={"Grpc-Timeout": "300m"}, timeout=10)
        elapsed = time.monotonic() - started
    finally:
        lock.release()
    assert resp.status == 504, resp
    assert resp.json["code"] == 4, resp
    assert elapsed < 5, elapsed  # the deadline, not the 10 s default, decided
    wait_until_idle(stack)  # the call's body has ended: whatever it would write is committed
    assert stored(stack, [request_id]) == {}
    # The same request sent again without a deadline is stored, once.
    assert stack.post("/issues", new_issue(request_id)).status == 201
    assert stored(stack, [request_id]) == {request_id: 1}


def test_a_grpc_deadline_is_honoured_the_same_way(stack):
    lock = TableLock(stack)
    request_id = uuid.uuid4().hex
    body = '{"property_id":"BER1","room_number":"101","title":"grpc deadline","category":"PLUMBING",' \
           f'"reported_by":"overload-test","request_id":"{request_id}"}}'
    try:
        out = stack.tool("grpcurl", "-plaintext", "-max-time", "0.3", "-d", body, stack.grpc_addr,
                         "hotel.v1.IssueService/CreateIssue")
    finally:
        lock.release()
    assert "DeadlineExceeded" in out.stdout + out.stderr, out.stdout + out.stderr
    wait_until_idle(stack)
    assert stored(stack, [request_id]) == {}


def test_a_request_whose_caller_left_does_not_run_its_statements(stack):
    """Both connections are taken by writes waiting on the lock; a third write is admitted and
    waits for a connection; its caller gives up; when the connections free, it must not insert."""
    lock = TableLock(stack)
    holders = [uuid.uuid4().hex for _ in range(POOL)]
    quitter = uuid.uuid4().hex
    with concurrent.futures.ThreadPoolExecutor(max_workers=POOL) as pool:
        answered = gateway_answered(stack, "POST", ISSUES_ROUTE)
        futures = [pool.submit(stack.post, "/issues", new_issue(r), timeout=30) for r in holders]
        # Both holders have their connection and wait on the lock.
        assert wait_for(lambda: value(scrape(stack), "hotel_server_db_pool_in_use", pool="main") == POOL, 10)
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            stack.post("/issues", new_issue(quitter), timeout=0.5)  # the client disconnects
        # The gateway has given up the call (and cancelled it on the server).
        assert wait_for(lambda: gateway_answered(stack, "POST", ISSUES_ROUTE) > answered, 10)
        lock.release()
        assert [f.result().status for f in futures] == [201] * POOL
    wait_until_idle(stack)
    assert stored(stack, holders + [quitter]) == {r: 1 for r in holders}


def test_the_openapi_document_declares_the_refusal_and_the_deadline(api):
    """Clients generated from the document learn of 503 with Retry-After and of 504 on every operation
    that admission control guards (all but the probes and the change stream, which are never shed)."""
    document = api.get("/openapi.json").json
    for path, operations in document["paths"].items():
        if path.startswith("/api/v1/health") or path == "/api/v1/changes/stream":
            continue
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "Retry-After" in responses["503"].get("headers", {}), (method, path)
            assert "OVERLOADED" in responses["503"]["x-error-reasons"], (method, path)
            assert "DEADLINE_EXCEEDED" in responses["504"]["x-error-reasons"], (method, path)
