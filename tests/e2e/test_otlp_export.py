"""Traces exported over OTLP (docs/operations.md, "Tracing") from both processes to a real trace backend: an
OpenTelemetry Collector built from the Go module proxy at pinned versions (scripts/trace-backend.sh) with an
OTLP/HTTP receiver and the file exporter, whose OTLP/JSON lines the tests read. One POST /issues with a caller's
traceparent is one trace (gateway span, its gRPC client span, the server's RPC span, admission, transaction and
statements) that the change and the webhook delivering it lead back to; with the backend stopped requests are
answered and the drops counted by both processes, and export resumes when it is back."""
import json
import os
import re
import urllib.request
import uuid

import pytest

from conftest import local_stack
from stack import wait_for
from trace_backend import Collector, attributes
from webhook_receiver import Receiver

SERVER, CLIENT = 2, 3  # OTLP span kinds
TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


def one(spans, **match):
    chosen = [s for s in spans if all((attributes(s).get(k[5:]) if k.startswith("attr_") else s.get(k)) == v
                                      for k, v in match.items())]
    assert len(chosen) == 1, (match, [(s["service"], s["name"]) for s in spans])
    return chosen[0]


@pytest.fixture(scope="module")
def collector(tmp_path_factory):
    c = Collector(str(tmp_path_factory.mktemp("trace-backend")))
    c.start()
    yield c
    if c.process.poll() is None:
        c.stop()


@pytest.fixture(scope="module")
def stack(collector):
    saved = dict(os.environ)
    # Both processes read the standard variables; a short batch delay so spans arrive within the test.
    os.environ.update(OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint, OTEL_BSP_SCHEDULE_DELAY="100",
                      OTEL_EXPORTER_OTLP_TIMEOUT="1000", OTEL_RESOURCE_ATTRIBUTES="deployment.environment.name=test")
    try:
        s = local_stack("hotel_otlp", server_args=["--webhook-poll-interval=10ms"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    yield s
    s.stop()


def new_issue(stack, headers):
    resp = stack.post("/issues", {"property_id": "BER1", "room_number": "101", "title": "Traced tap",
                                  "category": "PLUMBING", "priority": "LOW", "reported_by": "Ana Costa"},
                      headers=headers)
    assert resp.status == 201, resp
    return resp


def metric(stack, name):
    """A counter's value in the pod's /metrics (the gateway's and the server's families)."""
    with urllib.request.urlopen(stack.metrics_url, timeout=10) as resp:
        text = resp.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


def test_post_issues_is_one_trace_from_the_caller_to_the_statements_and_the_webhook(stack, collector):
    receiver = Receiver()
    subscribed = stack.post("/webhooks", {"url": receiver.url, "resource_type": ["ISSUE"]})
    assert subscribed.status == 201, subscribed
    receiver.secrets.append(subscribed.json["secret"])
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    trace_id, caller_span = uuid.uuid4().hex, uuid.uuid4().hex[:16]
    resp = new_issue(stack, {"traceparent": f"00-{trace_id}-{caller_span}-01"})
    answered = TRACEPARENT.match(resp.headers["Traceparent"])
    assert answered and answered.group(1) == trace_id and answered.group(3) == "01", resp.headers
    # The latency histogram leads to the trace: its exemplar (OpenMetrics, for a scraper that asks).
    scrape = urllib.request.Request(stack.metrics_url, headers={"Accept": "application/openmetrics-text;version=1.0.0"})
    with urllib.request.urlopen(scrape, timeout=10) as metrics:
        text = metrics.read().decode()
    assert re.search(r'hotel_gateway_request_duration_seconds_bucket\{method="POST",route="/api/v1/issues",le="[^"]+"\} '
                     rf'\d+ # \{{trace_id="{trace_id}"\}}', text), text[-3000:]
    assert "hotel_server_trace_spans_exported_total" in text and text.endswith("# EOF\n")

    def whole(spans):
        names = {(s["service"], s["name"]) for s in spans}
        return {("hotel-gateway", "POST /api/v1/issues"), ("hotel-server", "hotel.v1.IssueService/CreateIssue"),
                ("hotel-server", "issues/insert_issue")} <= names

    spans = collector.trace(trace_id, whole)
    gateway = one(spans, service="hotel-gateway", kind=SERVER)
    assert gateway["name"] == "POST /api/v1/issues" and gateway["parentSpanId"] == caller_span
    assert gateway["spanId"] == answered.group(2)  # the span the caller was told about
    assert attributes(gateway)["http.route"] == "/api/v1/issues"
    assert attributes(gateway)["http.response.status_code"] in ("201", 201)
    client = one(spans, service="hotel-gateway", kind=CLIENT)
    assert client["parentSpanId"] == gateway["spanId"] and client["name"] == "hotel.v1.IssueService/CreateIssue"
    rpc = one(spans, service="hotel-server", kind=SERVER)
    assert rpc["parentSpanId"] == client["spanId"] and rpc["name"] == "hotel.v1.IssueService/CreateIssue"
    assert attributes(rpc)["rpc.system"] == "grpc" and attributes(rpc)["rpc.method"] == "CreateIssue"
    admission = one(spans, name="admission")
    assert admission["parentSpanId"] == rpc["spanId"] and attributes(admission)["hotel.admission.admitted"] is True
    transactions = [s for s in spans if s["name"] == "db write"]
    assert transactions and all(t["parentSpanId"] == rpc["spanId"] for t in transactions)
    statements = [s for s in spans if s["kind"] == CLIENT and s["service"] == "hotel-server"]
    assert statements and all(s["parentSpanId"] in {t["spanId"] for t in transactions} for s in statements)
    assert all(attributes(s)["db.system"] == "postgresql" for s in statements)
    names = {s["name"] for s in statements}
    # The insert is the whole write, committed on its own (an issue that takes no room out of order).
    assert "issues/insert_issue" in names, names
    # Statement names, never values: the issue's title is nowhere in the trace.
    assert "Traced tap" not in json.dumps(spans)
    # Nested in time as in parentage.
    for child, parent in [(client, gateway), (rpc, client), (admission, rpc)] + [(t, rpc) for t in transactions]:
        assert int(parent["startTimeUnixNano"]) <= int(child["startTimeUnixNano"]), (child["name"], parent["name"])
        assert int(child["endTimeUnixNano"]) <= int(parent["endTimeUnixNano"]), (child["name"], parent["name"])
    resources = {s["service"] for s in spans}
    assert resources == {"hotel-gateway", "hotel-server"}

    # The change carries the trace id; the webhook delivery that carries the change links to the trace.
    issue_id = resp.json["id"]
    changes = stack.get(f"/changes?after={cursor}&resource_type=ISSUE").json["data"]
    assert [c["trace_id"] for c in changes if c["resource_id"] == issue_id] == [trace_id]
    assert wait_for(lambda: any(issue_id in r["body"].decode() for r in receiver.requests), 20)

    def linked(name):
        return [s for s in collector.spans() if s["name"] == name
                and trace_id in {link["traceId"] for link in s.get("links", [])}]

    assert wait_for(lambda: linked("webhook delivery"), 20), "no delivery span links to the trace"
    delivery = linked("webhook delivery")[0]
    assert delivery["traceId"] != trace_id and attributes(delivery)["hotel.webhook.id"] == subscribed.json["id"]
    assert any(s["parentSpanId"] == delivery["spanId"] for s in collector.spans() if s["traceId"] == delivery["traceId"])
    assert wait_for(lambda: linked("change feed fan-out"), 20), "no fan-out span links to the trace"
    receiver.close()


def test_an_invalid_traceparent_starts_a_fresh_exported_trace(stack, collector):
    marker = uuid.uuid4().hex
    for invalid in (f"ff-{marker}-00f067aa0ba902b7-01", f"00-{marker.upper()}-00f067aa0ba902b7-01"):
        resp = stack.get("/rooms/101?property_id=BER1", headers={"traceparent": invalid})
        assert resp.status == 200
        answered = TRACEPARENT.match(resp.headers["Traceparent"])
        assert answered and answered.group(1) != marker and answered.group(3) == "01", resp.headers
        spans = collector.trace(answered.group(1), lambda s: {"hotel-gateway", "hotel-server"} <= {x["service"] for x in s})
        root = one(spans, service="hotel-gateway", kind=SERVER)
        assert not root.get("parentSpanId") and root["name"] == "GET /api/v1/rooms/{number}", root
    assert not [s for s in collector.spans() if s["traceId"] == marker]


def test_with_the_backend_away_requests_are_answered_and_drops_counted_and_export_resumes(stack, collector):
    collector.stop()
    for _ in range(20):
        assert stack.get("/rooms/101?property_id=BER1").status == 200
    assert new_issue(stack, {}).status == 201
    for process in ("server", "gateway"):
        assert wait_for(lambda: metric(stack, f'hotel_{process}_trace_spans_dropped_total{{reason="export_failed"}}') > 0,
                        20), f"no failed export counted by the {process}"
    collector.start()
    trace_id = uuid.uuid4().hex
    resp = stack.get("/rooms/101?property_id=BER1", headers={"traceparent": f"00-{trace_id}-{uuid.uuid4().hex[:16]}-01"})
    assert resp.status == 200
    collector.trace(trace_id, lambda s: {"hotel-gateway", "hotel-server"} <= {x["service"] for x in s}, timeout=60)
    assert metric(stack, "hotel_server_trace_spans_exported_total") > 0
    assert metric(stack, "hotel_gateway_trace_spans_exported_total") > 0
