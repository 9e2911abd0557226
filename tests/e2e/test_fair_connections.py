"""One client cannot take the gateway's connections from the others (issue 47), with the gateway's
default settings (those of scripts/up.sh). Distinct clients are distinct loopback source
addresses: the hostile one is 127.0.0.2, the measured one 127.0.0.3.

- 2,000 connections of one client, half change streams it never reads and half idle keep-alives:
  past its share the gateway closes them at once (and a stream past the client's stream share gets
  429 and its connection closed); meanwhile the probes on the admin port answer and the other
  client's GetRoom has p99 < 100 ms.
- The same with 3,000 slowloris connections (a header byte every 3 s).
"""
import http.client
import socket
import threading
import time
import urllib.request

import pytest

from conftest import local_stack
from stack import wait_for
from test_observability import scrape, value

HOSTILE, OTHER = "127.0.0.2", "127.0.0.3"
CALLS = 300


@pytest.fixture(scope="module")
def stack():
    s = local_stack("hotel_fair_connections")
    yield s
    s.stop()


def connect(stack, head=b""):
    """A connection of the hostile client that sent head; None when refused at connect."""
    try:
        conn = socket.create_connection(stack.http_address(), timeout=10, source_address=(HOSTILE, 0))
        if head:
            conn.sendall(head)
        return conn
    except OSError:
        return None


def p99_ms(durations):
    return sorted(durations)[int(len(durations) * 0.99) - 1] * 1000


def assert_others_are_served(stack):
    """The admin port's probes answer, and the other client's GetRoom has p99 < 100 ms."""
    for probe in ("/health/live", "/health/ready", "/health/startup"):
        with urllib.request.urlopen(stack.gateway_admin + probe, timeout=2) as resp:
            assert resp.status == 200, probe
    host, port = stack.http_address()
    conn = http.client.HTTPConnection(host, port, timeout=2, source_address=(OTHER, 0))
    durations = []
    try:
        for _ in range(CALLS):
            started = time.perf_counter()
            conn.request("GET", "/api/v1/rooms/101?property_id=BER1")
            resp = conn.getresponse()
            resp.read()
            durations.append(time.perf_counter() - started)
            assert resp.status == 200, resp.status
    finally:
        conn.close()
    assert p99_ms(durations) < 100, f"p99 {p99_ms(durations):.1f} ms"
    return p99_ms(durations)


def test_streams_and_idle_keep_alives_of_one_client_leave_the_others_served(stack):
    refused_before = value(scrape(stack), "hotel_gateway_connections_refused_total")
    streams = [connect(stack, b"GET /api/v1/changes/stream HTTP/1.1\r\nHost: x\r\n\r\n") for _ in range(1000)]
    keep_alives = [connect(stack, b"GET /api/v1/health/live HTTP/1.1\r\nHost: x\r\n\r\n") for _ in range(1000)]
    try:
        assert wait_for(lambda: value(scrape(stack), "hotel_gateway_connections_refused_total") > refused_before, 10)
        print(f"\n2,000 connections of one client: p99 {assert_others_are_served(stack):.1f} ms")
        samples = scrape(stack)
        # Streams past the client's share were answered 429 and closed, not held.
        assert value(samples, "hotel_gateway_streams_open") <= 100
        assert value(samples, "hotel_gateway_streams_refused_total", limit="client") > 0
    finally:
        for conn in streams + keep_alives:
            if conn:
                conn.close()
    assert wait_for(lambda: value(scrape(stack), "hotel_gateway_streams_open") == 0, 10)


def test_slowloris_connections_of_one_client_leave_the_others_served(stack):
    conns = [connect(stack, b"G") for _ in range(3000)]
    stop = threading.Event()

    def drip():
        """A header byte every 3 s on each connection still open."""
        while not stop.wait(3):
            for conn in conns:
                if conn is not None:
                    try:
                        conn.send(b"E")
                    except OSError:
                        pass

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        # Measured over more than one drip, while the connections the gateway keeps are held.
        until, worst = time.monotonic() + 4, 0
        while time.monotonic() < until:
            worst = max(worst, assert_others_are_served(stack))
        print(f"\n3,000 slowloris connections: p99 at most {worst:.1f} ms")
    finally:
        stop.set()
        dripper.join()
        for conn in conns:
            if conn:
                conn.close()


def test_a_connection_past_the_share_is_told_at_once_and_the_held_ones_are_served(stack):
    """Past its share (256 connections by default) a client's next connection is answered 503 with
    Retry-After at once and closed, while every connection it holds is still served. A client of its
    own, so no other test's connections still closing count against it."""
    client = "127.0.0.4"
    held = [http.client.HTTPConnection(*stack.http_address(), timeout=10, source_address=(client, 0))
            for _ in range(256)]
    try:
        for conn in held:
            conn.connect()
        # The gateway counts a connection once it has accepted it: the first request on each says so.
        for conn in held:
            conn.request("GET", "/api/v1/health/live")
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200, resp.status
        extra = http.client.HTTPConnection(*stack.http_address(), timeout=10, source_address=(client, 0))
        started = time.perf_counter()
        extra.request("GET", "/api/v1/rooms/101?property_id=BER1")
        resp = extra.getresponse()
        body = resp.read()
        took_ms = (time.perf_counter() - started) * 1000
        extra.close()
        assert resp.status == 503 and resp.getheader("Retry-After") == "1", (resp.status, body)
        assert b"TOO_MANY_CONNECTIONS" in body, body
        print(f"\nthe connection past the share refused in {took_ms:.1f} ms")
        for conn in held[:10] + held[-10:]:
            conn.request("GET", "/api/v1/rooms/101?property_id=BER1")
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200, resp.status
    finally:
        for conn in held:
            conn.close()
