"""Page tokens and change cursors are sealed (server/src/common/token_seal.h; docs/versioning.md, "Page tokens"):
any change to one — a cut, a changed character, a key swapped inside it, a token of another list or other
filters, a page token of the previous release — is 400 naming the field, on every list and on the feed's cursor.
A change cursor of 1.3 (unsealed) is a position in the feed and keeps working through 1.x. A real token pages
through every record once, also when the pages come from two replicas sharing the key."""
import base64
import json
import urllib.request
import uuid

import pytest

from conftest import replica_pair
from stack import Stack, wait_for
from webhook_receiver import Receiver

KEY = "a-test-page-token-key-" + uuid.uuid4().hex
TAG_BYTES = 12


def unbase64(token):
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def enbase64(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def changed_char(token, index):
    return token[:index] + ("B" if token[index] != "B" else "C") + token[index + 1:]


def forged_page_tokens(token, other_list_token):
    raw = unbase64(token)
    payload, tag = raw[:-TAG_BYTES], raw[-TAG_BYTES:]
    parts = payload.split(b"\x1f")
    with_key = lambda key: enbase64(b"\x1f".join(parts[:3] + [key] + parts[4:]) + tag)
    return {
        "its last character cut off": token[:-1],
        "its last character changed": changed_char(token, len(token) - 1),
        "a character in the middle changed": changed_char(token, len(token) // 2),
        "a key replaced by a quote mark": with_key(b'"'),
        "a key replaced by an empty key": with_key(b""),
        "a key dropped": enbase64(b"\x1f".join(parts[:-1]) + tag),
        "the token of another list": other_list_token,
        "the previous release's form of it": enbase64(b"\x1f".join([b"p1"] + parts[1:])),
    }


def forged_cursors(cursor):
    raw = unbase64(cursor)
    later = raw[:1] + (int.from_bytes(raw[1:9], "big") + 1).to_bytes(8, "big") + raw[9:]
    return {
        "its last character cut off": cursor[:-1],
        "its last character changed": changed_char(cursor, len(cursor) - 1),
        "a character in the middle changed": changed_char(cursor, len(cursor) // 2),
        "the next position under the same seal": enbase64(later),
    }


@pytest.fixture(scope="module")
def replicas():
    """Two servers and their gateways over one database, with the same key."""
    with replica_pair("hotel_page_tokens", ["--page-token-keys", KEY]) as pair:
        yield pair


def lists_with_two_pages(stack):
    """A path of every list, each with at least two records (made here where the seed has fewer)."""
    receiver = Receiver()
    for _ in range(2):
        assert stack.post("/webhooks", {"url": receiver.url}).status == 201
    for number in ("201", "202"):
        resp = stack.post("/room-blocks", {"property_id": "BER1", "room_number": number, "type": "OUT_OF_SERVICE",
                                           "start_date": "2031-01-05", "end_date": "2031-01-06"})
        assert resp.status == 201, resp
    rooms = stack.get("/rooms?property_id=BER1&page_size=500").json["data"]
    room_with_equipment = next(r["number"] for r in rooms
                               if len(stack.get(f"/rooms/{r['number']}/equipment?property_id=BER1").json["data"]) > 1)
    return {
        "/properties": "/room-types?property_id=BER1",
        "/room-types?property_id=BER1": "/properties",
        "/rooms?property_id=BER1": "/issues?property_id=BER1",
        f"/rooms/{room_with_equipment}/equipment?property_id=BER1": "/rooms?property_id=BER1",
        "/maintenance/schedules?property_id=BER1": "/issues?property_id=BER1",
        "/issues?property_id=BER1": "/maintenance/schedules?property_id=BER1",
        "/room-blocks?property_id=BER1&from_date=2031-01-01&to_date=2031-01-31": "/rooms?property_id=BER1",
        "/webhooks": "/properties",
    }


def next_token(stack, path):
    resp = stack.get(f"{path}&page_size=1" if "?" in path else f"{path}?page_size=1")
    assert resp.status == 200 and resp.json["next_page_token"], (path, resp)
    return resp.json["next_page_token"]


def test_every_forged_page_token_on_every_list_is_400_naming_it(replicas):
    stack, _ = replicas
    lists = lists_with_two_pages(stack)
    for path, other_list in lists.items():
        token = next_token(stack, path)
        separator = "&" if "?" in path else "?"
        assert stack.get(f"{path}{separator}page_size=1&page_token={token}").status == 200
        for what, forged in forged_page_tokens(token, next_token(stack, other_list)).items():
            resp = stack.get(f"{path}{separator}page_size=1&page_token={forged}")
            assert resp.status == 400 and resp.reason() == "INVALID_PAGE_TOKEN", (path, what, resp)
            assert resp.violations() == ["page_token"], (path, what, resp)


def test_a_token_of_other_filters_is_400(replicas):
    stack, _ = replicas
    token = next_token(stack, "/rooms?property_id=BER1&floor=1")
    resp = stack.get(f"/rooms?property_id=BER1&floor=2&page_size=1&page_token={token}")
    assert resp.status == 400 and resp.violations() == ["page_token"], resp


def test_the_previous_release_form_says_to_start_again(replicas):
    stack, _ = replicas
    token = next_token(stack, "/rooms?property_id=BER1")
    old = forged_page_tokens(token, token)["the previous release's form of it"]
    resp = stack.get(f"/rooms?property_id=BER1&page_size=1&page_token={old}")
    assert resp.status == 400 and "earlier release" in resp.text, resp


def test_every_forged_change_cursor_is_400_naming_it(replicas):
    stack, _ = replicas
    day = 10 + uuid.uuid4().int % 18
    resp = stack.post("/room-blocks", {"property_id": "BER1", "room_number": "203", "type": "OUT_OF_SERVICE",
                                       "start_date": f"2032-02-{day}", "end_date": f"2032-02-{day + 1}"})
    assert resp.status == 201, resp
    # The change is in the feed once the hub has sequenced it.
    assert wait_for(lambda: stack.get("/changes?page_size=1").json["data"], 10)
    first = stack.get("/changes?page_size=1")
    cursor = first.json["data"][0]["cursor"]
    assert stack.get(f"/changes?after={cursor}&page_size=1").status == 200
    for what, forged in forged_cursors(cursor).items():
        resp = stack.get(f"/changes?after={forged}&page_size=1")
        assert resp.status == 400 and resp.reason() == "INVALID_CURSOR", (what, resp)
        assert resp.violations() == ["after"], (what, resp)


def test_a_1_3_change_cursor_is_read_as_its_position_over_rest_and_grpc(replicas):
    stack, _ = replicas
    for day in (10, 12):  # two changes at least, whichever tests ran before
        resp = stack.post("/room-blocks", {"property_id": "BER1", "room_number": "204", "type": "OUT_OF_SERVICE",
                                           "start_date": f"2033-03-{day}", "end_date": f"2033-03-{day + 1}"})
        assert resp.status == 201, resp
    assert wait_for(lambda: len(stack.get("/changes?page_size=2").json["data"]) == 2, 10)
    first, second = stack.get("/changes?page_size=2").json["data"]
    # 1.3's form: "AQ" + the position as 8 bytes, base64url, no seal.
    old = enbase64(b"\x01" + unbase64(first["cursor"])[1:9])
    resp = stack.get(f"/changes?after={old}&page_size=1")
    assert resp.status == 200, resp
    assert resp.json["data"][0]["cursor"] == second["cursor"], resp
    before = legacy_cursors_read(stack)
    out = stack.tool("grpcurl", "-plaintext", "-d", json.dumps({"after": old, "page_size": 1}), stack.grpc_addr,
                     "hotel.v1.ChangeService/ListChanges")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"][0]["cursor"] == second["cursor"], out.stdout
    assert legacy_cursors_read(stack) == before + 1


def legacy_cursors_read(stack):
    with urllib.request.urlopen(stack.metrics_url, timeout=10) as resp:
        for line in resp.read().decode().splitlines():
            if line.startswith("hotel_server_legacy_change_cursors_total"):
                return float(line.split()[-1])
    raise AssertionError("hotel_server_legacy_change_cursors_total is not exported")


def test_a_token_pages_through_every_record_once_across_two_replicas(replicas):
    first, second = replicas
    everything = [r["number"] for r in first.get("/rooms?property_id=BER1&page_size=500").json["data"]]
    assert len(everything) > 6
    seen, token, turn = [], "", 0
    while True:
        stack = (first, second)[turn % 2]
        resp = stack.get(f"/rooms?property_id=BER1&page_size=3&page_token={token}")
        assert resp.status == 200, resp
        seen += [r["number"] for r in resp.json["data"]]
        token, turn = resp.json["next_page_token"], turn + 1
        if not token:
            break
    assert seen == everything and turn > 2


def test_a_replica_with_another_key_refuses_the_token(replicas):
    first, _ = replicas
    token = next_token(first, "/rooms?property_id=BER1")
    other = Stack(first.cluster, first.database)
    try:
        other.start_server(extra_args=["--page-token-keys", "another-key-0123456789abcdef"])
        other.start_gateway()
        other.wait_ready()
        resp = other.get(f"/rooms?property_id=BER1&page_size=1&page_token={token}")
        assert resp.status == 400 and resp.violations() == ["page_token"], resp
    finally:
        other.stop(keep_database=True)
