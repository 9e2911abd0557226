"""The watch lifecycle under stress (issue 60): watchers over gRPC, SSE and NDJSON, from an old cursor (catching
up through pages of the log) and from now, cancelled at random points (before their first message, while
catching up, while live, while a heartbeat is due) or stalled, while issues are written as fast as one client
can. It ends with the server alive (no crash: crashes.py fails the run otherwise), every watcher's memory back,
and a watcher that stayed having seen exactly what the log holds. A second test does the same while the server
drains on SIGTERM, which must end every watcher and exit 0.

HOTEL_WATCH_STRESS_SECONDS bounds each run (default 10); HOTEL_WATCH_STRESS_RUNS repeats it on one stack
(default 1; the issue's check is 20 consecutive runs). scripts/watch-stress.sh runs them against the release,
AddressSanitizer and ThreadSanitizer builds of the server."""
import http.client
import os
import random
import signal
import threading
import time

import grpc
import pytest

from changefeed import WATCH, Collector, grpc_watch, watch_request
from conftest import local_stack
from stack import wait_for
from test_watcher_shares import rss_kib

SECONDS = float(os.environ.get("HOTEL_WATCH_STRESS_SECONDS", "10"))
RUNS = int(os.environ.get("HOTEL_WATCH_STRESS_RUNS", "1"))
CHURNERS = 8  # client threads opening and ending watchers


@pytest.fixture(scope="module")
def stress_stack():
    # A heartbeat every second, so some watchers end while one is due.
    stack = local_stack("hotel_watch_stress", server_args=["--change_max_watchers", "5000",
                                                           "--change_max_watchers_per_client", "5000",
                                                           "--change_heartbeat_interval", "1s"])
    yield stack
    stack.stop()


# The sanitizer builds run several times slower: their memory is the allocator's, not given back, and the
# writer meets their admission's refusals. scripts/watch-stress.sh says which build runs.
SANITIZED = os.environ.get("HOTEL_WATCH_STRESS_BUILD", "release") != "release"


def write_issue(stack, n):
    """One issue written, as a polite client: after a 503 (overloaded) it backs off briefly and writes again,
    while the server lives (a dead server is a 503 from the gateway too; crashes.py reports how it died)."""
    while stack.server.poll() is None:
        answer = stack.post("/issues", {"property_id": "BER1", "room_number": "102", "title": f"stress {n}",
                                        "category": "OTHER", "priority": "LOW", "reported_by": "e2e"})
        if answer.status != 503:
            assert answer.status == 201, answer
            return
        time.sleep(0.05)
    pytest.fail("the server died")


def change_cursor_now(stack):
    """The change log's position now, once the server answers (a sanitizer build warms up slowly)."""
    answers = []
    answered = wait_for(lambda: answers.append(stack.get("/issues?page_size=1")) or answers[-1].status == 200, 60)
    assert answered, answers[-1]
    return answers[-1].json["change_cursor"]


def grpc_churn(channel, cursor, rng):
    """One gRPC watcher, ended after reading 0 to 250 messages (a catch-up page is 100), or stalled first."""
    call = channel.unary_stream(WATCH, request_serializer=None, response_deserializer=lambda data: data)(
        watch_request(cursor), timeout=30)
    try:
        for _ in range(rng.choice([0, 1, 5, 50, 120, 250])):
            next(call)
        if rng.random() < 0.2:
            time.sleep(rng.random() / 2)  # stalled: reads nothing for a while
    except (grpc.RpcError, StopIteration):
        pass
    call.cancel()


def http_churn(stack, cursor, rng):
    """One SSE or NDJSON watcher through the gateway, closed after 0 to 200 lines, or stalled first."""
    host, port = stack.http_address()
    headers = {"Accept": "text/event-stream"} if rng.random() < 0.5 else {}
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        connection.request("GET", f"/api/v1/changes/stream?after={cursor}", headers=headers)
        response = connection.getresponse()
        for _ in range(rng.choice([0, 1, 10, 150, 200])):
            if not response.readline():  # decoded: the stream's end is its last chunk
                break
        if rng.random() < 0.2:
            time.sleep(rng.random() / 2)
    except OSError:
        pass
    connection.close()


@pytest.mark.parametrize("run", range(RUNS))
def test_watchers_cancelled_at_random_points_leave_the_server_whole(stress_stack, run):
    stack = stress_stack
    old = change_cursor_now(stack)
    for n in range(300):  # three catch-up pages behind the old cursor
        write_issue(stack, n)
    before = rss_kib(stack.server.pid)

    stop = threading.Event()
    opened = [0] * CHURNERS
    errors = []

    def churn(index):
        rng = random.Random(run * 100 + index)
        try:
            with grpc.insecure_channel(stack.grpc_addr) as channel:
                while not stop.is_set():
                    cursor = old if rng.random() < 0.5 else ""
                    if rng.random() < 0.5:
                        grpc_churn(channel, cursor, rng)
                    else:
                        http_churn(stack, cursor, rng)
                    opened[index] += 1
        except Exception as err:  # reported below: a thread's failure must fail the test
            errors.append(err)

    with grpc.insecure_channel(stack.grpc_addr) as channel:
        stayed_call = grpc_watch(channel, after=old, timeout=SECONDS + 120)
        stayed = Collector(stayed_call)  # reads all along, as a client that keeps up
        threads = [threading.Thread(target=churn, args=(i,)) for i in range(CHURNERS)]
        for thread in threads:
            thread.start()
        written = 0
        deadline = time.monotonic() + SECONDS
        while time.monotonic() < deadline:
            write_issue(stack, 300 + written)
            written += 1
        stop.set()
        for thread in threads:
            thread.join()
        assert not errors, errors[:3]
        assert stack.server.poll() is None, "the server died"

        # The watcher that stayed saw exactly the log after its cursor, in order.
        log = []
        cursor = old
        while True:
            page = stack.get(f"/changes?after={cursor}&page_size=500").json
            log += [change["cursor"] for change in page["data"]]
            if not page["data"]:
                break
            cursor = page["next_cursor"]
        wait_for(lambda: len(stayed.changes) >= len(log) or stayed.done.is_set(), 60)
        stayed_call.cancel()
        stayed.thread.join()
        assert [change["cursor"] for change in stayed.changes[:len(log) + 1]] == log

    # Every watcher gone, its memory given back (the hub trims once they have left).
    assert SANITIZED or wait_for(lambda: rss_kib(stack.server.pid) <= 1.2 * before, 20), \
        (before, rss_kib(stack.server.pid))
    print(f"\nwatch stress run {run}: {sum(opened)} watchers opened and ended in {SECONDS:.0f} s while "
          f"{written} issues were written; server RSS {before} KiB before, {rss_kib(stack.server.pid)} KiB after")


@pytest.mark.parametrize("run", range(RUNS))
def test_watchers_being_opened_and_cancelled_while_the_server_drains_end_cleanly(run):
    """SIGTERM while watchers of every kind are opened, read and cancelled: the server ends them and exits 0."""
    stack = local_stack("hotel_watch_drain", server_args=["--change_heartbeat_interval", "1s"])
    try:
        old = change_cursor_now(stack)
        for n in range(150):  # more than a catch-up page behind the old cursor
            write_issue(stack, n)
        stop = threading.Event()
        opened = [0] * CHURNERS

        def churn(index):
            rng = random.Random(run * 100 + index)
            with grpc.insecure_channel(stack.grpc_addr) as channel:
                while not stop.is_set():
                    cursor = old if rng.random() < 0.5 else ""
                    try:
                        if rng.random() < 0.5:
                            grpc_churn(channel, cursor, rng)
                        else:
                            http_churn(stack, cursor, rng)
                    except http.client.HTTPException:
                        pass  # the server going away can end a response mid-stream: expected here
                    opened[index] += 1

        def write():  # changes at the rate one client can write them, until the server is gone
            written = 0
            while not stop.is_set() and stack.post("/issues", {
                    "property_id": "BER1", "room_number": "102", "title": f"drain {written}", "category": "OTHER",
                    "priority": "LOW", "reported_by": "e2e"}).status == 201:
                written += 1

        threads = [threading.Thread(target=churn, args=(i,)) for i in range(CHURNERS)]
        threads.append(threading.Thread(target=write))
        for thread in threads:
            thread.start()
        assert wait_for(lambda: sum(opened) >= 4 * CHURNERS, 60), opened
        stack.server.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        code = stack.server.wait(timeout=30)
        drained = time.monotonic() - signalled
        stop.set()
        for thread in threads:
            thread.join()
        assert code == 0, f"the server exited with {code}"
        print(f"\nwatch drain run {run}: {sum(opened)} watchers opened before and during the drain; "
              f"exited 0 after {drained:.2f} s")
    finally:
        stack.stop()
