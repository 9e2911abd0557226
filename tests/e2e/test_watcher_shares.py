"""One client cannot take what the others need from the server's change feed (the hostile-clients
issue, server side): watchers per client are capped (CHANGE_MAX_WATCHERS_PER_CLIENT), so a
greedy client gets 429 WATCHER_LIMIT while another still watches and reads; watchers that resume
from an old cursor and never read hold one catch-up page each; and the memory they held is given
back once they leave."""
import threading
import time

import grpc
import pytest

from changefeed import watch_request
from conftest import local_stack
from stack import wait_for

PER_CLIENT = 10


@pytest.fixture
def shares_stack():
    """A stack for each test: a client's watchers another test left are not released at once."""
    stack = local_stack("hotel_shares", server_args=["--change-max-watchers", "2000",
                                                     "--change-max-watchers-per-client", str(PER_CLIENT)])
    yield stack
    stack.stop()


def watch_as(channel, client, after="", timeout=30):
    call = channel.unary_stream("/hotel.v1.ChangeService/WatchChanges", request_serializer=None,
                                response_deserializer=lambda data: data)
    return call(watch_request(after), timeout=timeout, metadata=[("x-client-id", client)])


def test_a_greedy_client_gets_429_while_another_still_watches(shares_stack):
    stack = shares_stack
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        held = []
        for _ in range(PER_CLIENT):
            call = watch_as(channel, "greedy")
            next(call)  # established
            held.append(call)
        with pytest.raises(grpc.RpcError) as refused:
            next(watch_as(channel, "greedy"))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "CHANGE_MAX_WATCHERS_PER_CLIENT" in refused.value.details()
        # Another client on the same connection still gets a watcher, and calls are answered.
        other = watch_as(channel, "polite")
        next(other)
        assert stack.get("/rooms/101?property_id=BER1").status == 200
        other.cancel()
        for call in held:
            call.cancel()
        # Gone watchers free the greedy client's places.
        def may_watch_again():
            call = watch_as(channel, "greedy", timeout=5)
            try:
                next(call)
            except grpc.RpcError:
                return False
            call.cancel()
            return True
        assert wait_for(may_watch_again, 10)


def test_one_client_opening_10000_watchers_gets_its_share_while_others_are_served(shares_stack):
    stack = shares_stack
    durations, failures, flooding = [], [], threading.Event()
    flooding.set()

    def probe():
        while flooding.is_set():
            for path in ("/health/live", "/rooms/101?property_id=BER1"):
                started = time.perf_counter()
                resp = stack.get(path, headers={"X-Client-Id": "prober"}, timeout=2)
                durations.append(time.perf_counter() - started)
                if resp.status != 200:
                    failures.append((path, resp.status))

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    accepted, refused, held = 0, 0, []
    try:
        with grpc.insecure_channel(stack.grpc_addr) as channel:
            for _ in range(10_000):
                call = watch_as(channel, "greedy", timeout=60)
                try:
                    next(call)
                    accepted += 1
                    held.append(call)
                except grpc.RpcError as err:
                    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
                    refused += 1
            # Another client still gets a watcher while the greedy one holds its share.
            other = watch_as(channel, "polite")
            next(other)
            other.cancel()
            for call in held:
                call.cancel()
    finally:
        flooding.clear()
        prober.join()
    assert (accepted, refused) == (PER_CLIENT, 10_000 - PER_CLIENT)
    assert not failures, failures[:5]
    p99 = sorted(durations)[int(len(durations) * 0.99) - 1] * 1000
    print(f"\n10,000 watchers from one client: {accepted} held, {refused} refused (429); "
          f"another client's {len(durations)} probes and GetRoom calls: p99 {p99:.1f} ms")
    assert p99 <= 100, p99


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_stalled_watchers_from_an_old_cursor_give_their_memory_back(shares_stack, capsys):
    stack = shares_stack
    start = stack.get("/issues?page_size=1").json["change_cursor"]
    for i in range(300):  # three catch-up pages of history behind the cursor
        assert stack.post("/issues", {"property_id": "BER1", "room_number": "102", "title": f"history {i}",
                                      "category": "OTHER", "priority": "LOW", "reported_by": "e2e"}).status == 201
    first_before = rss_kib(stack.server.pid)
    rounds = []
    for _ in range(3):
        with grpc.insecure_channel(stack.grpc_addr, options=[("grpc.http2.bdp_probe", 0)]) as channel:
            calls = []
            for n in range(200):  # 20 clients of 10 stalled watchers: none reads past its first message
                call = watch_as(channel, f"stalled-{n // PER_CLIENT}", after=start)
                next(call)
                calls.append(call)
            peak = rss_kib(stack.server.pid)
            for call in calls:
                call.cancel()
        # The hub's watcher check (every 100 ms) returns what they held once they are gone.
        back = wait_for(lambda: rss_kib(stack.server.pid) <= 1.2 * first_before, 10)
        rounds.append((peak, rss_kib(stack.server.pid)))
        assert back, (first_before, rounds)
    with capsys.disabled():
        print(f"\nstalled watchers: server RSS {first_before} KiB before; (with 200, after) per round: {rounds}")
