"""W3C trace context through the gateway, the server, the database and the change feed, and the
one log shape of both processes (docs/operations.md, "Logs" and "Tracing"), on a stack of this module's;
the test that stops a stack to check every line its processes wrote has one of its own."""
import json
import re
import signal
import urllib.request
import uuid

import grpc
import pytest

from changefeed import grpc_watch, sse_events
from conftest import local_stack
from logshape import check_log
from stack import wait_for

TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


@pytest.fixture(scope="module")
def stack():
    s = local_stack("hotel_tracing")
    yield s
    s.stop()
    # The lines the tests above made it write have the one shape too (as the shared stack's, conftest.api).
    check_log(s.gateway_log, "hotel-gateway")
    check_log(s.server_log, "hotel-server")


def new_trace():
    """A caller's traceparent: (header, trace id, span id)."""
    trace_id, span_id = uuid.uuid4().hex, uuid.uuid4().hex[:16]
    return f"00-{trace_id}-{span_id}-01", trace_id, span_id


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def wait_for_lines(path, predicate, timeout=5):
    """The log lines predicate accepts, once there is one."""
    found = []

    def any_found():
        found[:] = [line for line in lines(path) if predicate(line)]
        return bool(found)

    assert wait_for(any_found, timeout), f"no such line in {path}"
    return found


def new_issue(stack, headers):
    body = {"property_id": "BER1", "room_number": "101", "title": "Traced tap", "category": "PLUMBING",
            "priority": "LOW", "reported_by": "Ana Costa"}
    resp = stack.post("/issues", body, headers=headers)
    assert resp.status == 201, resp
    return resp


def test_a_callers_trace_reaches_both_logs_the_response_and_the_change_feed(stack):
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    header, trace_id, caller_span = new_trace()
    resp = new_issue(stack, {"traceparent": header, "tracestate": "congo=t61rcWkgMzE"})
    issue_id = resp.json["id"]

    # The response names the gateway's span of the caller's trace.
    answered = TRACEPARENT.match(resp.headers["Traceparent"])
    assert answered and answered.group(1) == trace_id and answered.group(3) == "01", resp.headers["Traceparent"]
    gateway_span = answered.group(2)
    assert gateway_span != caller_span

    request_id = resp.headers["X-Request-Id"]
    gateway = wait_for_lines(stack.gateway_log, lambda l: l.get("trace_id") == trace_id)
    assert [l["body"] for l in gateway] == ["request"], gateway
    assert gateway[0]["span_id"] == gateway_span and gateway[0]["request_id"] == request_id
    assert gateway[0]["http.request.method"] == "POST" and gateway[0]["http.route"] == "/api/v1/issues"
    assert gateway[0]["http.response.status_code"] == 201

    server = wait_for_lines(stack.server_log, lambda l: l.get("trace_id") == trace_id)
    rpc = [l for l in server if l["body"] == "rpc"]
    assert len(rpc) == 1 and rpc[0]["rpc.method"] == "CreateIssue", server
    # The server's hop has its own span; every line of the call carries the same ids.
    assert {(l["span_id"], l["request_id"]) for l in server} == {(rpc[0]["span_id"], request_id)}
    assert rpc[0]["span_id"] not in (gateway_span, caller_span)

    # The change it made carries the trace: GET /changes, the SSE and NDJSON streams, gRPC.
    def listed():
        page = stack.get(f"/changes?after={cursor}&resource_type=ISSUE").json["data"]
        return [c for c in page if c["resource_id"] == issue_id]

    assert wait_for(listed, 10)
    assert [c["trace_id"] for c in listed()] == [trace_id]

    resp, events = sse_events(f"{stack.base}/changes/stream?after={cursor}&resource_type=ISSUE")
    for kind, _, data in events:
        if kind == "message" and data["resource_id"] == issue_id:
            assert data["trace_id"] == trace_id, data
            break
    resp.close()

    url = f"{stack.base}/changes/stream?after={cursor}&resource_type=ISSUE"
    with urllib.request.urlopen(url, timeout=10) as ndjson:
        for raw in ndjson:
            change = json.loads(raw)["result"]["change"]
            if change and change["resource_id"] == issue_id:
                assert change["trace_id"] == trace_id, change
                break
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        call = grpc_watch(channel, after=cursor, resource_types=["ISSUE"], timeout=10)
        for message in call:
            if message["change"] and message["change"]["resource_id"] == issue_id:
                assert message["change"]["trace_id"] == trace_id, message
                break
        call.cancel()


def test_a_request_without_a_trace_gets_a_fresh_one(stack):
    resp = stack.get("/rooms/101?property_id=BER1")
    assert resp.status == 200
    answered = TRACEPARENT.match(resp.headers["Traceparent"])
    assert answered and answered.group(1) != "0" * 32 and answered.group(3) == "00", resp.headers["Traceparent"]
    trace_id = answered.group(1)
    gateway = wait_for_lines(stack.gateway_log, lambda l: l.get("trace_id") == trace_id)
    server = wait_for_lines(stack.server_log, lambda l: l.get("trace_id") == trace_id)
    assert gateway[0]["span_id"] == answered.group(2) and server[0]["rpc.method"] == "GetRoom"
    assert stack.get("/rooms/101?property_id=BER1").headers["Traceparent"][3:35] != trace_id


@pytest.mark.parametrize("malformed", [
    "00-{upper}-00f067aa0ba902b7-01",         # upper-case hex
    "ff-{lower}-00f067aa0ba902b7-01",         # version ff, which W3C forbids
    "00-{lower}-0000000000000000-01",         # an all-zero parent span
    "00-{lower}-00f067aa0ba902b7-01-extra",   # trailing text
    "00-{lower}<script>-00f067aa0ba902b7-01",  # junk
])
def test_a_malformed_trace_is_replaced_and_never_logged(stack, malformed):
    marker = uuid.uuid4().hex
    header = malformed.format(upper=marker.upper(), lower=marker)
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    resp = new_issue(stack, {"traceparent": header, "tracestate": f"x{marker}=<script>"})
    answered = TRACEPARENT.match(resp.headers["Traceparent"])
    assert answered and answered.group(1) != marker and answered.group(3) == "00", resp.headers["Traceparent"]
    trace_id = answered.group(1)
    wait_for_lines(stack.gateway_log, lambda l: l.get("trace_id") == trace_id)
    wait_for_lines(stack.server_log, lambda l: l.get("trace_id") == trace_id)
    for path in (stack.gateway_log, stack.server_log):
        text = open(path).read().lower()
        assert marker not in text and "<script>" not in text, path
    assert wait_for(lambda: resp.json["id"] in {c["resource_id"] for c in stack.get(
        f"/changes?after={cursor}&resource_type=ISSUE").json["data"] if c["trace_id"] == trace_id}, 10)


def test_grpc_callers_trace_is_honoured_and_answered(stack):
    header, trace_id, caller_span = new_trace()
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        check = channel.unary_unary("/grpc.health.v1.Health/Check").with_call
        _, call = check(b"", metadata=[("traceparent", header), ("x-request-id", "grpc-" + trace_id)], timeout=5)
        answered = TRACEPARENT.match(dict(call.initial_metadata())["traceparent"])
        # A malformed one from a gRPC caller is replaced too.
        _, fresh = check(b"", metadata=[("traceparent", "00-" + "f" * 32 + "-" + "0" * 16 + "-01")], timeout=5)
    assert answered and answered.group(1) == trace_id and answered.group(2) != caller_span
    server = wait_for_lines(stack.server_log, lambda l: l.get("trace_id") == trace_id)
    assert server[0]["span_id"] == answered.group(2) and server[0]["request_id"] == "grpc-" + trace_id
    assert server[0]["rpc.service"] == "grpc.health.v1.Health" and server[0]["rpc.grpc.status_code"] == 0
    assert dict(fresh.initial_metadata())["traceparent"][3:35] != "f" * 32


@pytest.fixture
def own_stack():
    """A stack for one test, which may stop it."""
    s = local_stack("hotel_tracing_shape")
    yield s
    s.stop()


def test_every_line_of_both_processes_has_the_one_shape(own_stack):
    """After a mix of traced, untraced and malformed requests, failures, gRPC calls, a stream and a
    shutdown, every line either process wrote parses as the one shape."""
    stack = own_stack
    new_issue(stack, {"traceparent": new_trace()[0], "tracestate": "congo=t61rcWkgMzE"})
    new_issue(stack, {"traceparent": "00-" + "f" * 32 + "-" + "0" * 16 + "-01", "tracestate": "x=<script>"})
    assert stack.get("/rooms/101?property_id=BER1").status == 200
    assert stack.get("/rooms/999?property_id=BER1").status == 404
    assert stack.get("/changes?after=nonsense").status == 400
    assert stack.post("/issues", {"property_id": "BER1"}).status == 400
    assert stack.get("/no/such/route").status == 404
    assert stack.get("/rooms?property_id=BER1", headers={"traceparent": "zz-not-a-trace"}).status == 200
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        channel.unary_unary("/grpc.health.v1.Health/Check")(b"", metadata=[("traceparent", new_trace()[0])],
                                                             timeout=5)
    resp, events = sse_events(f"{stack.base}/changes/stream")
    next(events)
    resp.close()
    for proc in (stack.gateway, stack.server):
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    seen = {"hotel-gateway": check_log(stack.gateway_log, "hotel-gateway"),
            "hotel-server": check_log(stack.server_log, "hotel-server")}
    assert {"listening", "request", "stopped"} <= seen["hotel-gateway"], seen
    assert {"listening", "rpc", "stopped"} <= seen["hotel-server"], seen
