"""Feeds by interest (1.5.0, docs/changes.md): `room_changes=ROOM_DATA` takes a room's data changes without its
housekeeping ones, `room_changes=HOUSEKEEPING` its housekeeping changes alone, on GET /changes, the stream (SSE),
gRPC WatchChanges and webhook subscriptions; a reader that asks for nothing new receives every change, as in 1.4.
Each test makes a property of its own on this module's stack."""
import time

import grpc
import pytest

from changefeed import Collector, grpc_watch, sse_events
from conftest import local_stack, new_property
from test_change_diff import cursor_of, feed
from webhook_receiver import Receiver, check_delivery, settled


@pytest.fixture(scope="module")
def api():
    stack = local_stack("hotel_room_changes", server_args=["--webhook-senders=1", "--webhook-poll-interval=10ms"])
    yield stack
    stack.stop()


def room_updates(changes):
    return [(c["resource_id"], "housekeeping" if c["changed_fields"][0].startswith("housekeeping_") else "data")
            for c in changes if c["resource_type"] == "ROOM" and c["kind"] == "UPDATED"]


def write_both(api, property_id):
    """A room data write, a housekeeping write, another room data write: 101 floor, 101 CLEAN, 102 floor."""
    assert api.patch(f"/rooms/101?property_id={property_id}", {"floor": 2}).status == 200
    assert api.patch(f"/rooms/101/housekeeping?property_id={property_id}", {"condition": "CLEAN"}).status == 200
    assert api.patch(f"/rooms/102?property_id={property_id}", {"floor": 3}).status == 200


EVERY = [("101", "data"), ("101", "housekeeping"), ("102", "data")]
BY_INTEREST = {"ROOM_DATA": [("101", "data"), ("102", "data")], "HOUSEKEEPING": [("101", "housekeeping")]}


def test_get_changes_takes_room_data_or_housekeeping_and_by_default_both(api):
    property_id = new_property(api, prefix="RC", rooms=("101", "102"))
    cursor = cursor_of(api, property_id)
    write_both(api, property_id)
    every = feed(api, cursor, lambda cs: len(room_updates(cs)) == 3, property_id=property_id)
    assert room_updates(every) == EVERY, "asked for nothing new: every change, as in 1.4"
    for interest, expected in BY_INTEREST.items():
        changes = feed(api, cursor, lambda cs: len(room_updates(cs)) >= len(expected), property_id=property_id,
                       room_changes=interest)
        assert room_updates(changes) == expected, (interest, changes)
    # Other resource types are not filtered by it: the policy's change is on the HOUSEKEEPING feed too.
    policy = api.patch(f"/properties/{property_id}/housekeeping-policy", {"vacant_dirty_after_days": 2})
    assert policy.status == 200, policy
    changes = feed(api, cursor, lambda cs: any(c["resource_type"] == "HOUSEKEEPING_POLICY" for c in cs),
                   property_id=property_id, room_changes="HOUSEKEEPING")
    # (The property's and its room types' creations may be sequenced after the cursor: not this test's.)
    assert [c["resource_type"] for c in changes if c["resource_type"] not in ("PROPERTY", "ROOM_TYPE")] == \
        ["ROOM", "HOUSEKEEPING_POLICY"], changes
    # A room's creation is room data.
    assert api.post("/rooms", {"property_id": property_id, "number": "103", "floor": 1,
                               "room_type_id": f"{property_id}-STD"}).status == 201
    created = feed(api, cursor, lambda cs: any(c["resource_id"] == "103" for c in cs), property_id=property_id,
                   resource_type="ROOM", room_changes="ROOM_DATA")
    assert [c["kind"] for c in created if c["resource_id"] == "103"] == ["CREATED"]
    # (The creations of 101 and 102 may be sequenced after the cursor: on the ROOM_DATA feed, never on HOUSEKEEPING.)
    housekeeping = feed(api, cursor, lambda cs: True, property_id=property_id, room_changes="HOUSEKEEPING")
    assert not any(c["kind"] == "CREATED" and c["resource_type"] == "ROOM" for c in housekeeping), housekeeping
    refused = api.get(f"/changes?after={cursor}&room_changes=SOMETIMES")
    assert refused.status == 400, refused


def test_grpc_watch_and_the_stream_take_room_data_or_housekeeping(api):
    property_id = new_property(api, prefix="RC", rooms=("101", "102"))
    cursor = cursor_of(api, property_id)
    with grpc.insecure_channel(api.grpc_addr) as channel:
        # Live, from the hub's fan-out: subscribed before the writes.
        live = {interest: Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id,
                                               room_changes=interest),
                                    until=lambda cs, n=len(expected): len(room_updates(cs)) >= n)
                for interest, expected in BY_INTEREST.items()}
        deadline = time.time() + 10
        while not all(c.heartbeats for c in live.values()) and time.time() < deadline:
            time.sleep(0.02)
        assert all(c.heartbeats for c in live.values()), "the watches were not established"
        write_both(api, property_id)
        for interest, collector in live.items():
            assert collector.done.wait(20) and collector.error is None, collector.error
            assert room_updates(collector.changes) == BY_INTEREST[interest], interest
        every = feed(api, cursor, lambda cs: len(room_updates(cs)) == 3, property_id=property_id)
        # Caught up from the log: started after the writes.
        for interest, expected in BY_INTEREST.items():
            catch_up = Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id,
                                            room_changes=interest),
                                 until=lambda cs, n=len(expected): len(room_updates(cs)) >= n)
            assert catch_up.done.wait(20) and catch_up.error is None, catch_up.error
            assert room_updates(catch_up.changes) == expected, interest
        plain = Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id),
                          until=lambda cs: len(room_updates(cs)) >= 3)
        assert plain.done.wait(20) and plain.error is None, plain.error
        assert room_updates(plain.changes) == room_updates(every) == EVERY

    resp, events = sse_events(f"{api.base}/changes/stream?after={cursor}&property_id={property_id}"
                              "&room_changes=HOUSEKEEPING")
    try:
        seen = []
        for kind, _, data in events:
            if kind == "message":
                seen.append(data)
            if room_updates(seen):
                break
    finally:
        resp.close()
    assert room_updates(seen) == BY_INTEREST["HOUSEKEEPING"], seen


@pytest.mark.parametrize("interest", ["ROOM_DATA", "HOUSEKEEPING", None])
def test_a_webhook_subscription_takes_room_data_or_housekeeping(api, interest):
    property_id = new_property(api, prefix="RC", rooms=("101", "102"))
    receiver = Receiver()
    try:
        fields = {"room_changes": interest} if interest else {}
        created = api.post("/webhooks", {"url": receiver.url, "resource_type": ["ROOM"], "property_id": property_id,
                                         **fields})
        assert created.status == 201, created
        webhook = created.json
        receiver.secrets.append(webhook["secret"])
        stored = interest or "ROOM_CHANGES_UNSPECIFIED"
        assert webhook.get("room_changes", "ROOM_CHANGES_UNSPECIFIED") == stored, webhook
        assert api.get(f"/webhooks/{webhook['id']}").json.get("room_changes", "ROOM_CHANGES_UNSPECIFIED") == stored
        write_both(api, property_id)
        params = {"resource_type": "ROOM", "property_id": property_id, **fields}
        feed(api, webhook["cursor"], lambda cs: len(room_updates(cs)) == len(BY_INTEREST.get(interest, EVERY)),
             **params)
        expected = settled(api, receiver, webhook["cursor"], **params)
        assert room_updates(expected) == BY_INTEREST.get(interest, EVERY)
        check_delivery(receiver, expected)
        if interest == "ROOM_DATA":
            # Changed to housekeeping alone: the next housekeeping write is delivered, the next floor is not.
            changed = api.patch(f"/webhooks/{webhook['id']}", {"room_changes": "HOUSEKEEPING"})
            assert changed.status == 200 and changed.json["room_changes"] == "HOUSEKEEPING", changed
            assert api.patch(f"/rooms/102?property_id={property_id}", {"floor": 4}).status == 200
            assert api.patch(f"/rooms/102/housekeeping?property_id={property_id}",
                             {"condition": "CLEAN"}).status == 200
            deadline = time.time() + 20
            while len(receiver.changes()) < len(expected) + 1 and time.time() < deadline:
                time.sleep(0.05)
            assert room_updates(receiver.changes()[len(expected):]) == [("102", "housekeeping")]
    finally:
        receiver.close()
