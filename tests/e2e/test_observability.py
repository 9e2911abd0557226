"""Metrics that a real Prometheus text parser accepts and that move with traffic, and request
ids that reach the server's logs."""
import json
import time
import urllib.error
import urllib.request
import uuid

from prometheus_client.parser import text_string_to_metric_families
from stack import VERSION


def scrape(api):
    with urllib.request.urlopen(api.metrics_url, timeout=10) as resp:
        text = resp.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0)


def test_metrics_parse_and_move_with_requests(api):
    before = scrape(api)
    for _ in range(3):
        assert api.get("/rooms/101?property_id=BER1").status == 200
    assert api.get("/rooms/999?property_id=BER1").status == 404
    after = scrape(api)

    route = "/api/v1/rooms/{number}"
    assert value(after, "hotel_gateway_requests_total", method="GET", route=route, code="200") - \
        value(before, "hotel_gateway_requests_total", method="GET", route=route, code="200") == 3
    assert value(after, "hotel_gateway_requests_total", method="GET", route=route, code="404") - \
        value(before, "hotel_gateway_requests_total", method="GET", route=route, code="404") == 1

    method = "/hotel.v1.RoomService/GetRoom"
    assert value(after, "hotel_server_rpcs_total", method=method, code="OK") - \
        value(before, "hotel_server_rpcs_total", method=method, code="OK") == 3
    assert value(after, "hotel_server_rpcs_total", method=method, code="NOT_FOUND") - \
        value(before, "hotel_server_rpcs_total", method=method, code="NOT_FOUND") == 1
    assert value(after, "hotel_server_rpc_duration_seconds_count", method=method) >= 4
    assert value(after, "hotel_server_db_pool_size", pool="main") >= 1
    assert value(after, "hotel_server_build_info", version=VERSION) == 1
    assert value(after, "hotel_server_database_up") == 1
    assert value(after, "hotel_gateway_build_info", version=VERSION) == 1


def open_stream(url, timeout=10):
    """The stream's response once the feed serves (503 while the hub makes its first poll)."""
    deadline = time.time() + timeout
    while True:
        try:
            return urllib.request.urlopen(url, timeout=10)
        except urllib.error.HTTPError as error:
            if error.code != 503 or time.time() > deadline:
                raise
            time.sleep(0.1)


def test_change_feed_gauges_follow_watchers_and_writes(api):
    before = scrape(api)
    watchers = value(before, "hotel_server_change_watchers")
    stream = open_stream(api.base + "/changes/stream")  # NDJSON, open until closed
    try:
        fan = api.post("/rooms/109/equipment", {"property_id": "BER1", "name": "Gauge fan", "type": "fan"})
        assert fan.status == 201, fan
        deadline = time.time() + 10
        while True:
            during = scrape(api)
            moved = value(during, "hotel_server_change_log_position") > value(before, "hotel_server_change_log_position")
            if (value(during, "hotel_server_change_watchers") == watchers + 1 and moved) or time.time() > deadline:
                break
            time.sleep(0.05)
        assert value(during, "hotel_server_change_watchers") == watchers + 1 and moved, during
    finally:
        stream.close()


def test_request_id_reaches_the_server_log(api):
    request_id = "e2e-" + uuid.uuid4().hex
    resp = api.get("/rooms/102?property_id=BER1", headers={"X-Request-Id": request_id})
    assert resp.status == 200 and resp.headers["X-Request-Id"] == request_id
    generated = api.get("/properties").headers["X-Request-Id"]
    assert len(generated) == 32

    deadline = time.time() + 5
    while time.time() < deadline:
        lines = [json.loads(l) for l in open(api.server_log) if l.startswith("{")]
        hits = [l for l in lines if l.get("request_id") == request_id]
        if hits:
            break
        time.sleep(0.1)
    assert hits, "request id not in the server log"
    rpc = [l for l in hits if l["body"] == "rpc"][0]
    assert rpc["rpc.service"] == "hotel.v1.RoomService" and rpc["rpc.method"] == "GetRoom", rpc
    assert rpc["rpc.grpc.status_code"] == 0 and isinstance(rpc["duration_ms"], float), rpc
    assert "property_id" not in json.dumps(hits)  # no request bodies in logs
