"""Webhooks (docs/webhooks.md) end to end: the real server (two of them for the takeover), the
gateway, PostgreSQL and receivers listening on loopback that verify every signature. Subscriptions
through REST and gRPC; the allow-list and the ping refusing; ordered gap-free delivery from 8
writers to three subscriptions with different filters; a receiver failing (5xx, timeouts, 429 with
Retry-After) then recovering; 410 disabling and re-enabling; a replica killed mid-batch."""
import concurrent.futures
import json
import os
import signal
import uuid

import pytest

from conftest import start_cluster
from stack import PG_DIR, PG_PORT, Stack, free_port, wait_for
from webhook_receiver import Receiver, check_delivery, feed, settled, verify

# Retries shrunk (5 s -> 1 ms, 5 min -> 60 ms, 30 min -> 360 ms), short leases and timeouts.
SERVER_ARGS = ["--webhook-retry-scale=0.0002", "--webhook-lease=2s", "--webhook-timeout=1s",
               "--webhook-poll-interval=10ms", "--webhook-senders=4"]
ROOMS = ["101", "102", "103", "201", "202", "203"]


@pytest.fixture(scope="module")
def stack():
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    s = Stack(cluster, f"hotel_webhooks_{os.getpid()}").start(server_args=SERVER_ARGS)
    yield s
    s.stop()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def subscribe(stack, receiver, **fields):
    resp = stack.post("/webhooks", {"url": receiver.url, **fields})
    assert resp.status == 201, resp
    receiver.secrets.append(resp.json["secret"])
    return resp.json


def new_issue(stack, room="101", property_id="BER1", title="Dripping tap"):
    resp = stack.post("/issues", {"property_id": property_id, "room_number": room, "title": title,
                                  "category": "PLUMBING", "priority": "LOW", "reported_by": "Ana Costa"})
    assert resp.status == 201, resp
    return resp.json


def latest_cursor(stack):
    resp = stack.get("/issues?page_size=1")
    assert resp.status == 200, resp
    return resp.json["change_cursor"]


def test_create_get_list_update_delete(stack, receiver):
    created = subscribe(stack, receiver, resource_type=["ISSUE"], property_id="BER1", view="CHANGE_VIEW_FULL")
    assert created["secret"].startswith("whsec_") and len(created["secret"]) >= 6 + 32
    assert created["state"] == "ACTIVE" and created["resource_type"] == ["ISSUE"]
    assert created["view"] == "CHANGE_VIEW_FULL" and created["property_id"] == "BER1"
    # The creation's ping: signed with the secret, answered before the subscription existed.
    ping = receiver.requests[0]
    assert ping["json"]["type"] == "ping" and receiver.verified(ping), ping
    assert ping["json"]["next_cursor"] == created["cursor"]

    got = stack.get(f"/webhooks/{created['id']}")
    assert got.status == 200 and got.json["secret"] == "" and got.json["url"] == receiver.url, got
    listed = stack.get("/webhooks?page_size=500").json["data"]
    assert created["id"] in [w["id"] for w in listed]

    paused = stack.patch(f"/webhooks/{created['id']}", {"state": "PAUSED"})
    assert paused.status == 200 and paused.json["state"] == "PAUSED", paused
    changed = stack.patch(f"/webhooks/{created['id']}", {"resource_type": ["ROOM", "ISSUE"], "state": "ACTIVE"})
    assert changed.status == 200 and changed.json["state"] == "ACTIVE", changed
    assert changed.json["resource_type"] == ["ROOM", "ISSUE"] and changed.json["property_id"] == "BER1"

    deleted = stack.request("DELETE", f"/webhooks/{created['id'].upper()}")
    assert deleted.status == 200 and deleted.json == {"id": created["id"]}, deleted
    gone = stack.get(f"/webhooks/{created['id']}")
    assert gone.status == 404 and gone.reason() == "WEBHOOK_NOT_FOUND", gone
    assert stack.request("DELETE", f"/webhooks/{created['id']}").status == 404


def test_list_pages(stack, receiver):
    ids = {subscribe(stack, receiver)["id"] for _ in range(3)}
    seen, token = [], ""
    while True:
        page = stack.get(f"/webhooks?page_size=2&page_token={token}")
        assert page.status == 200, page
        seen += [w["id"] for w in page.json["data"]]
        token = page.json["next_page_token"]
        if not token:
            break
    assert ids <= set(seen) and len(seen) == len(set(seen))
    for i in ids:
        stack.request("DELETE", f"/webhooks/{i}")


def test_allow_list_refuses_other_hosts(stack):
    for url in ("http://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data", "https://example.com/x"):
        resp = stack.post("/webhooks", {"url": url})
        assert resp.status == 400 and resp.reason() == "WEBHOOK_URL_NOT_ALLOWED", resp
        assert resp.violations() == ["url"], resp
        assert "WEBHOOK_ALLOWED_HOSTS" in resp.text


def test_ping_refuses_dead_and_failing_urls(stack, receiver):
    dead = stack.post("/webhooks", {"url": f"http://127.0.0.1:{free_port()}/hook"})
    assert dead.status == 400 and dead.reason() == "WEBHOOK_PING_FAILED", dead
    assert dead.violations() == ["url"] and "connect" in dead.text, dead
    receiver.script = [500]
    failing = stack.post("/webhooks", {"url": receiver.url})
    assert failing.status == 400 and failing.reason() == "WEBHOOK_PING_FAILED" and "HTTP 500" in failing.text, failing
    # Nothing was created by either.
    assert receiver.url not in [w["url"] for w in stack.get("/webhooks?page_size=500").json["data"]]


def test_bad_input_names_the_field(stack):
    resp = stack.post("/webhooks", {"resource_type": ["ISSUE"], "after": "nope", "property_id": "bad id"})
    assert resp.status == 400, resp
    assert set(resp.violations()) == {"url", "after", "property_id"}, resp
    assert stack.get("/webhooks/not-a-uuid").status == 400
    assert stack.get(f"/webhooks/{uuid.uuid4()}").reason() == "WEBHOOK_NOT_FOUND"
    assert stack.patch(f"/webhooks/{uuid.uuid4()}", {"state": "PAUSED"}).status == 404
    assert stack.get("/webhooks?page_token=garbage").reason() == "INVALID_PAGE_TOKEN"
    assert stack.get(f"/webhooks/{uuid.uuid4()}/deliveries").reason() == "WEBHOOK_NOT_FOUND"
    assert stack.get("/webhooks/nope/deliveries").violations() == ["id"]


def test_grpc_create_and_list(stack, receiver):
    out = stack.tool("grpcurl", "-plaintext", "-d", json.dumps({"url": receiver.url}), stack.grpc_addr,
                     "hotel.v1.WebhookService/CreateWebhook")
    assert out.returncode == 0, out.stderr
    created = json.loads(out.stdout)
    assert created["secret"].startswith("whsec_")
    out = stack.tool("grpcurl", "-plaintext", "-d", json.dumps({"id": created["id"], "webhook": {"state": "PAUSED"}}),
                     stack.grpc_addr, "hotel.v1.WebhookService/UpdateWebhook")
    assert out.returncode == 0 and json.loads(out.stdout)["state"] == "PAUSED", out
    out = stack.tool("grpcurl", "-plaintext", "-d", json.dumps({"url": "http://10.0.0.1/"}), stack.grpc_addr,
                     "hotel.v1.WebhookService/CreateWebhook")
    assert out.returncode != 0 and "InvalidArgument" in out.stderr and "WEBHOOK_URL_NOT_ALLOWED" in out.stderr
    stack.request("DELETE", f"/webhooks/{created['id']}")


def test_ordered_gap_free_delivery_from_8_writers(stack):
    start = latest_cursor(stack)
    receivers = [Receiver(), Receiver(), Receiver()]
    filters = [{}, {"resource_type": ["ISSUE"], "property_id": "BER1"}, {"resource_type": ["ISSUE"],
                                                                         "view": "CHANGE_VIEW_FULL"}]
    hooks = [subscribe(stack, r, after=start, **f) for r, f in zip(receivers, filters)]
    per_writer = int(os.environ.get("WEBHOOK_TEST_ISSUES_PER_WRITER", "1250"))

    def write(w):
        for i in range(per_writer):
            new_issue(stack, room=ROOMS[(w + i) % len(ROOMS)], title=f"w{w} #{i}")

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(8)))
    params = [{}, {"resource_type": "ISSUE", "property_id": "BER1"}, {"resource_type": "ISSUE",
                                                                    "view": "CHANGE_VIEW_FULL"}]
    for r, p in zip(receivers, params):
        expected = settled(stack, r, start, timeout=180, **p)
        if p:
            assert len(expected) >= 8 * per_writer
        check_delivery(r, expected)
    assert all("resource" in c and c["resource"] for c in receivers[2].changes())
    for h, r in zip(hooks, receivers):
        stack.request("DELETE", f"/webhooks/{h['id']}")
        r.close()


def test_failing_receiver_recovers(stack, receiver):
    hook = subscribe(stack, receiver, resource_type=["ISSUE"])
    start = hook["cursor"]
    # 429 with Retry-After 1, a 500, a timeout (the sender gives up after 1 s), a 503: then 2xx.
    receiver.script = [(429, 1), 500, ("sleep", 1.5), (503, 0)]
    for i in range(30):
        new_issue(stack, title=f"retry #{i}")
    check_delivery(receiver, settled(stack, receiver, start, resource_type="ISSUE"))
    batches = [r for r in receiver.requests if r["json"].get("type") != "ping"]
    # The batch in flight was retried with the same id and bytes; a Retry-After of 1 s was kept.
    first = batches[0]
    retried = [r for r in batches if r["id"] == first["id"]]
    assert len(retried) >= 5 and {r["body"] for r in retried} == {first["body"]}
    assert retried[1]["at"] - retried[0]["at"] >= 0.9
    # The delivery log: newest first, the failures alone on request, each with its status or error.
    failures = stack.get(f"/webhooks/{hook['id']}/deliveries?failures_only=true")
    assert failures.status == 200, failures
    log = list(reversed(failures.json["data"]))
    assert [(d["attempt"], d["http_status"], d["error"]) for d in log] == [
        (1, 429, ""), (2, 500, ""), (3, 0, "timeout"), (4, 503, "")], log
    assert {d["message_id"] for d in log} == {first["id"]} and not any(d["succeeded"] for d in log)
    assert log[1]["response"] == "ok" and log[2]["duration_ms"] >= 900
    everything = stack.get(f"/webhooks/{hook['id']}/deliveries?page_size=500").json["data"]
    delivered = [d for d in everything if d["succeeded"]]
    assert delivered[-1]["message_id"] == first["id"] and delivered[-1]["attempt"] == 5
    assert delivered[-1]["after"] == start and delivered[0]["through"] == receiver.changes()[-1]["cursor"]
    page = stack.get(f"/webhooks/{hook['id']}/deliveries?page_size=2")
    assert len(page.json["data"]) == 2 and page.json["next_page_token"], page
    older = stack.get(f"/webhooks/{hook['id']}/deliveries?page_size=2&page_token={page.json['next_page_token']}")
    assert int(older.json["data"][0]["id"]) < int(page.json["data"][1]["id"]), older
    # Resending a delivered batch: the same changes under the same webhook-id, logged as attempt 0.
    last = delivered[0]
    resent = stack.post(f"/webhooks/{hook['id']}/deliveries/{last['id']}/resend", {})
    assert resent.status == 200 and resent.json["attempt"] == 0 and resent.json["succeeded"], resent
    assert resent.json["message_id"] == last["message_id"] and resent.json["through"] == last["through"]
    again = receiver.requests[-1]
    original = [r for r in receiver.deliveries() if r["id"] == last["message_id"]][0]
    assert again["id"] == last["message_id"] and again["json"] == original["json"] and receiver.verified(again)
    missing = stack.post(f"/webhooks/{hook['id']}/deliveries/999999999/resend", {})
    assert missing.status == 404 and missing.reason() == "WEBHOOK_DELIVERY_NOT_FOUND", missing
    assert stack.post(f"/webhooks/{hook['id']}/deliveries/x/resend", {}).violations() == ["delivery_id"]
    stack.request("DELETE", f"/webhooks/{hook['id']}")


def test_410_disables_and_resuming_continues(stack, receiver):
    hook = subscribe(stack, receiver, resource_type=["ISSUE"])
    receiver.script = [410]
    new_issue(stack, title="gone")
    wait_for(lambda: stack.get(f"/webhooks/{hook['id']}").json["state"] == "DISABLED", 30)
    disabled = stack.get(f"/webhooks/{hook['id']}").json
    assert "410" in disabled["disabled_reason"] and disabled["cursor"] == hook["cursor"]
    new_issue(stack, title="while disabled")
    resumed = stack.patch(f"/webhooks/{hook['id']}", {"state": "ACTIVE"})
    assert resumed.status == 200 and resumed.json["disabled_reason"] == "", resumed
    check_delivery(receiver, settled(stack, receiver, hook["cursor"], resource_type="ISSUE"))
    stack.request("DELETE", f"/webhooks/{hook['id']}")


def test_replica_killed_mid_batch(stack, receiver):
    # A second replica on the same database; whichever holds the lease is killed while the receiver
    # sits on its batch.
    other = Stack(stack.cluster, stack.database)
    other.start_server(extra_args=SERVER_ARGS)
    try:
        hook = subscribe(stack, receiver, resource_type=["ISSUE"])
        receiver.script = [("sleep", 3)]
        for i in range(20):
            new_issue(stack, title=f"takeover #{i}")
        wait_for(lambda: len(receiver.requests) >= 2, 20)
        owner = stack.psql(f"SELECT lease_owner FROM webhooks WHERE id = '{hook['id']}'")
        pid = int(owner.split(":")[1].split("/")[0])
        assert pid in (stack.server.pid, other.server.pid), owner
        os.kill(pid, signal.SIGKILL)
        if pid == stack.server.pid:  # the gateway's server died: start it again
            stack.server.wait()
            stack.start_server(extra_args=SERVER_ARGS)
            stack.gateway.kill()
            stack.gateway.wait()
            stack.start_gateway()
            stack.wait_ready()
        check_delivery(receiver, settled(stack, receiver, hook["cursor"], resource_type="ISSUE"))
        # At most the batch in flight came twice, under the same webhook-id.
        ids = [r["id"] for r in receiver.requests if r["json"].get("type") != "ping"]
        repeated = {i for i in ids if ids.count(i) > 1}
        assert len(repeated) <= 1, ids
        stack.request("DELETE", f"/webhooks/{hook['id']}")
    finally:
        if other.server.poll() is None:
            other.server.kill()
            other.server.wait()


def test_metrics_count_attempts_states_and_lag(stack, receiver):
    from test_observability import scrape, value
    hook = subscribe(stack, receiver, resource_type=["ISSUE"])
    receiver.script = [500]
    new_issue(stack, title="metrics")
    check_delivery(receiver, settled(stack, receiver, hook["cursor"], resource_type="ISSUE"))

    def refreshed():
        samples = scrape(stack)
        return (value(samples, "hotel_server_webhooks", state="ACTIVE") >= 1
                and ("hotel_server_webhook_lag_seconds", (("webhook", hook["id"]),)) in samples)
    wait_for(refreshed, 15)
    samples = scrape(stack)
    assert value(samples, "hotel_server_webhook_attempts_total", result="delivered") >= 1
    assert value(samples, "hotel_server_webhook_attempts_total", result="failed") >= 1
    assert value(samples, "hotel_server_webhook_lag_seconds", webhook=hook["id"]) < 60
    stack.request("DELETE", f"/webhooks/{hook['id']}")


def test_ping_rotation_and_replay(stack, receiver):
    hook = subscribe(stack, receiver, resource_type=["ISSUE"])
    old_secret = receiver.secrets[0]
    # An on-demand ping reports how the endpoint answered.
    ping = stack.post(f"/webhooks/{hook['id']}/ping", {})
    assert ping.status == 200 and ping.json["ok"] and ping.json["http_status"] == 204, ping
    receiver.script = [503]
    ping = stack.post(f"/webhooks/{hook['id']}/ping", {})
    assert ping.status == 200 and not ping.json["ok"] and ping.json["http_status"] == 503, ping
    assert stack.post(f"/webhooks/{uuid.uuid4()}/ping", {}).status == 404

    # Rotation: during the grace period every delivery carries both signatures.
    rotated = stack.post(f"/webhooks/{hook['id']}/rotate-secret", {"grace_seconds": 2})
    assert rotated.status == 200 and rotated.json["secret"].startswith("whsec_"), rotated
    new_secret = rotated.json["secret"]
    assert new_secret != old_secret and stack.get(f"/webhooks/{hook['id']}").json["secret"] == ""
    assert stack.post(f"/webhooks/{hook['id']}/rotate-secret", {"grace_seconds": -1}).violations() == ["grace_seconds"]
    new_issue(stack, title="rotated")
    wait_for(lambda: len(receiver.changes()) >= 1, 20)
    during = receiver.deliveries()[-1]
    assert len(during["signature"].split()) == 2
    assert verify([old_secret], during["headers"], during["body"]) and verify([new_secret], during["headers"], during["body"])
    # Once the grace period is over, deliveries carry the new signature alone: write until one does.
    def signed_once():
        count = len(receiver.changes())
        new_issue(stack, title="after the grace period")
        assert wait_for(lambda: len(receiver.changes()) > count, 20)
        return len(receiver.deliveries()[-1]["signature"].split()) == 1
    assert wait_for(signed_once, 20)
    after = receiver.deliveries()[-1]
    assert len(after["signature"].split()) == 1 and verify([new_secret], after["headers"], after["body"])
    assert not verify([old_secret], after["headers"], after["body"])
    receiver.secrets.append(new_secret)
    first_two = receiver.changes()
    check_delivery(receiver, settled(stack, receiver, hook["cursor"], resource_type="ISSUE"))

    # Replay from the subscription's first cursor: the same changes again, in order, new ids.
    ids_before = {r["id"] for r in receiver.deliveries()}
    replayed = stack.post(f"/webhooks/{hook['id']}/replay", {"after": hook["cursor"]})
    assert replayed.status == 200 and replayed.json["cursor"] == hook["cursor"], replayed
    replay = lambda: [c for r in receiver.deliveries() if r["id"] not in ids_before for c in r["json"]["data"]]
    wait_for(lambda: len(replay()) >= len(first_two), 20)
    again = replay()
    assert again == first_two
    assert stack.post(f"/webhooks/{hook['id']}/replay", {}).violations() == ["after"]
    bad = stack.post(f"/webhooks/{hook['id']}/replay", {"after": "nonsense"})
    assert bad.status == 400 and bad.reason() == "INVALID_CURSOR", bad
    stack.request("DELETE", f"/webhooks/{hook['id']}")
