"""The service refuses only what it cannot serve within its deadline (docs/deadlines-and-retries.md,
issue 47), with scripts/up.sh's default settings:

- closed loop: 256 callers each of GetRoom, the room list and POST /issues, each waiting for its
  answer before its next request, with 1 s deadlines: no refusal while the served p99 is under the
  deadline;
- open loop at twice the capacity C the test measures: goodput at least 0.9 C, and every refusal is
  a 503 with Retry-After.

The load generator is Python threads on the same two cores as the gateway, server and database:
it measures C as this machine can drive it, and the runs are kept short.
"""
import concurrent.futures
import http.client
import threading
import time
import uuid

import pytest

from conftest import local_stack
from test_observability import scrape, value

CALLERS = 256
SECONDS = 5
DEADLINE = {"Grpc-Timeout": "1S"}


@pytest.fixture(scope="module")
def stack():
    s = local_stack("hotel_refusals")
    yield s
    s.stop()


def new_issue():
    return ('{"property_id":"BER1","room_number":"101","title":"closed loop","category":"OTHER",'
            f'"priority":"LOW","reported_by":"e2e","request_id":"{uuid.uuid4().hex}"}}')


OPERATIONS = {
    "GetRoom": lambda: ("GET", "/api/v1/rooms/101?property_id=BER1", None),
    "room list": lambda: ("GET", "/api/v1/rooms?property_id=BER1&floor=1", None),
    "POST /issues": lambda: ("POST", "/api/v1/issues", new_issue()),
}


class Outcomes:
    def __init__(self):
        self.lock = threading.Lock()
        self.served, self.refused, self.late, self.other = [], [], [], []

    def add(self, status, headers, seconds):
        with self.lock:
            if status in (200, 201):
                self.served.append(seconds)
            elif status == 504:
                self.late.append(seconds)
            elif status == 503:
                self.refused.append(headers.get("Retry-After"))
            else:
                self.other.append(status)

    def p99_ms(self):
        ordered = sorted(self.served)
        return ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000 if ordered else 0


def call(conn, operation, outcomes):
    method, path, body = OPERATIONS[operation]()
    headers = dict(DEADLINE, **({"Content-Type": "application/json"} if body else {}))
    started = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    resp.read()
    outcomes.add(resp.status, resp.headers, time.perf_counter() - started)


def closed_loop(stack, operation, callers, seconds):
    outcomes, until = Outcomes(), time.monotonic() + seconds

    def caller():
        conn = http.client.HTTPConnection(*stack.http_address(), timeout=5)
        try:
            while time.monotonic() < until:
                call(conn, operation, outcomes)
        finally:
            conn.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=callers) as pool:
        for f in [pool.submit(caller) for _ in range(callers)]:
            f.result()
    return outcomes


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_closed_loop_callers_are_not_refused_while_served_within_the_deadline(stack, operation):
    before = scrape(stack)
    outcomes = closed_loop(stack, operation, CALLERS, SECONDS)
    after = scrape(stack)
    shed = {layer: sum(value(after, f"hotel_{layer}_requests_shed_total", **labels) -
                       value(before, f"hotel_{layer}_requests_shed_total", **labels) for labels in label_sets)
            for layer, label_sets in (("gateway", [{}]),
                                      ("server", [{"reason": "queue_full"}, {"reason": "queue_timeout"}]))}
    rate = len(outcomes.served) / SECONDS
    print(f"\n{operation}: {CALLERS} callers, {rate:.0f}/s served, p99 {outcomes.p99_ms():.0f} ms, "
          f"{len(outcomes.refused)} refused (gateway {shed['gateway']:.0f}, server {shed['server']:.0f}), "
          f"{len(outcomes.late)} past their deadline")
    assert not outcomes.other, outcomes.other[:5]
    if outcomes.p99_ms() < 1000:
        assert not outcomes.refused, f"{len(outcomes.refused)} refused at served p99 {outcomes.p99_ms():.0f} ms"


def test_open_loop_at_twice_capacity_refuses_with_503_and_retry_after(stack):
    capacity = len(closed_loop(stack, "GetRoom", 32, 2).served) / 2
    rate, outcomes = 2 * capacity, Outcomes()
    until, interval = time.monotonic() + SECONDS, 1 / (2 * capacity)
    local = threading.local()

    def one():
        if not hasattr(local, "conn"):
            local.conn = http.client.HTTPConnection(*stack.http_address(), timeout=5)
        try:
            call(local.conn, "GetRoom", outcomes)
        except OSError:
            local.conn.close()
            del local.conn

    with concurrent.futures.ThreadPoolExecutor(max_workers=CALLERS) as pool:
        next_at = time.monotonic()
        while next_at < until:
            pool.submit(one)
            next_at += interval
            time.sleep(max(0.0, next_at - time.monotonic()))
    print(f"\nopen loop at {rate:.0f}/s (C {capacity:.0f}/s): {len(outcomes.served) / SECONDS:.0f}/s served, "
          f"{len(outcomes.refused)} refused")
    assert not outcomes.other, outcomes.other[:5]
    assert len(outcomes.served) / SECONDS >= 0.9 * capacity
    assert all(retry_after and int(retry_after) >= 1 for retry_after in outcomes.refused)
