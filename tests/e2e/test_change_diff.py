"""The change feed's view DIFF (1.4.0, docs/changes.md): `previous` holds what a change replaced and
`resource` what it wrote — for an update the changed fields only, for a creation the whole record
(no previous), for a deletion the whole last record as previous (no resource). Through GET /changes,
gRPC WatchChanges (live from the hub and caught up from the log), the SSE stream and a webhook in
view DIFF. Each test makes a property of its own on the shared stack."""
import json
import os
import random
import tempfile
import time

import grpc
import pytest

from changefeed import Collector, grpc_watch, sse_events
from conftest import local_stack, new_property
from webhook_receiver import Receiver, check_delivery, settled



@pytest.fixture(scope="module")
def api():
    """A stack of this module's own: its properties stay out of the shared stack's lists and counts."""
    stack = local_stack("hotel_change_diff")
    yield stack
    stack.stop()

def cursor_of(stack, property_id):
    """The feed's position now (a list's change_cursor), after every change of property_id so far."""
    listed = stack.get(f"/rooms?property_id={property_id}&page_size=1")
    assert listed.status == 200, listed
    return listed.json["change_cursor"]


def feed(stack, cursor, done, timeout=20, **params):
    """GET /changes after cursor with params (view=DIFF, ...), paged until done(changes) holds."""
    query = "".join(f"&{k}={v}" for k, v in params.items())
    changes, deadline = [], time.time() + timeout
    while time.time() < deadline:
        page = stack.get(f"/changes?after={cursor}&page_size=500{query}")
        assert page.status == 200, page
        changes += page.json["data"]
        cursor = page.json["next_cursor"]
        if done(changes):
            return changes
        time.sleep(0.05)
    raise AssertionError(f"timed out with {changes[-5:]}")


def in_views(stack, cursor, change, **params):
    """change as GET /changes shows it in each view: {"BASIC": ..., "FULL": ..., "DIFF": ...}."""
    out = {}
    for view in ("BASIC", "FULL", "DIFF"):
        changes = feed(stack, cursor, lambda cs: any(c["cursor"] == change["cursor"] for c in cs), view=view, **params)
        out[view] = next(c for c in changes if c["cursor"] == change["cursor"])
    return out


def move_room(stack, property_id, number, floor):
    moved = stack.patch(f"/rooms/{number}?property_id={property_id}", {"floor": floor})
    assert moved.status == 200 and moved.json["floor"] == floor, moved
    return moved.json


def room_update(changes, number):
    return next(c for c in changes if c["resource_type"] == "ROOM" and c["resource_id"] == number
                and c["kind"] == "UPDATED")


def test_a_room_update_shows_the_floor_before_and_after(api):
    property_id = new_property(api, prefix="DIFF", rooms=("101",), floor=1)
    cursor = cursor_of(api, property_id)
    move_room(api, property_id, "101", 2)
    changes = feed(api, cursor, lambda cs: any(c["kind"] == "UPDATED" for c in cs), view="DIFF",
                   property_id=property_id)
    update = room_update(changes, "101")
    assert update["changed_fields"] == ["floor"], update
    assert update["previous"] == {"floor": 1} and update["resource"] == {"floor": 2}, update

    views = in_views(api, cursor, update, property_id=property_id)
    assert views["DIFF"] == update
    # The prefixed spelling is the same view.
    spelled = api.get(f"/changes?after={cursor}&property_id={property_id}&view=CHANGE_VIEW_DIFF").json["data"]
    assert room_update(spelled, "101") == update
    # BASIC and FULL are as before: no previous values.
    assert views["BASIC"]["resource"] is None and views["BASIC"]["previous"] is None
    assert views["FULL"]["previous"] is None
    assert views["FULL"]["resource"]["floor"] == 2 and views["FULL"]["resource"]["number"] == "101"
    for view in ("BASIC", "FULL"):
        assert {k: v for k, v in views[view].items() if k not in ("resource", "previous")} == \
            {k: v for k, v in update.items() if k not in ("resource", "previous")}


def test_an_issue_status_change_shows_the_status_before_and_after(api):
    property_id = new_property(api, prefix="DIFF", rooms=("101",))
    cursor = cursor_of(api, property_id)
    created = api.post("/issues", {"property_id": property_id, "room_number": "101", "title": "Dripping tap",
                                   "category": "PLUMBING", "priority": "LOW", "reported_by": "Ana Costa"})
    assert created.status == 201, created
    issue = created.json
    started = api.patch(f"/issues/{issue['id']}", {"status": "IN_PROGRESS", "assignee": "Jonas"},
                        headers={"If-Match": f'"{issue["etag"]}"'})
    assert started.status == 200 and started.json["status"] == "IN_PROGRESS", started

    def both(cs):
        ours = [c for c in cs if c["resource_id"] == issue["id"]]
        return ours if len(ours) >= 2 else None
    diff = both(feed(api, cursor, both, view="DIFF", resource_type="ISSUE", property_id=property_id))
    full = both(feed(api, cursor, both, view="FULL", resource_type="ISSUE", property_id=property_id))
    assert [c["kind"] for c in diff] == ["CREATED", "UPDATED"], diff
    assert [c["etag"] for c in diff] == [issue["etag"], started.json["etag"]]

    # Created: the whole record, nothing before it.
    assert diff[0]["previous"] is None and diff[0]["resource"] == full[0]["resource"]
    # Updated: the changed fields' stored values before and after (the timeline is no stored field).
    update = diff[1]
    assert {"status", "assignee", "timeline"} <= set(update["changed_fields"]), update
    stored = set(update["changed_fields"]) - {"timeline"}
    assert set(update["previous"]) == stored and set(update["resource"]) == stored, update
    for field in stored:
        assert update["previous"][field] == full[0]["resource"][field], field
        assert update["resource"][field] == full[1]["resource"][field], field
    assert update["resource"]["status"] == full[1]["resource"]["status"] != update["previous"]["status"]
    assert update["previous"]["assignee"] in (None, "") and update["resource"]["assignee"] == "Jonas"


def test_a_deleted_image_shows_its_last_record_as_previous(api):
    property_id = new_property(api, prefix="DIFF")
    cursor = cursor_of(api, property_id)
    # A picture added by hotel-images ingest, then changed and removed through the API.
    seed = random.randrange(1, 1 << 30)
    with tempfile.TemporaryDirectory() as tmp:
        picture = os.path.join(tmp, f"p{seed}.jpg")
        made = api.images("generate", "--width=64", "--height=48", f"--seed={seed}", f"--out={picture}")
        assert made.returncode == 0, made.stderr
        out = api.images("ingest", f"--file={picture}", f"--room-type={property_id}-STD", "--alt-text=Diff test")
        assert out.returncode == 0, out.stderr
    image_id = json.loads(out.stdout)["image"]["id"]
    patched = api.patch(f"/images/{image_id}", {"alt_text": "Diff test, renamed"})
    assert patched.status == 200, patched
    removed = api.request("DELETE", f"/images/{image_id}")
    assert removed.status == 200, removed

    def mine(cs):
        ours = [c for c in cs if c["resource_id"] == image_id]
        return ours if ours and ours[-1]["kind"] == "DELETED" else None
    diff = mine(feed(api, cursor, mine, view="DIFF", resource_type="IMAGE", property_id=property_id))
    full = mine(feed(api, cursor, mine, view="FULL", resource_type="IMAGE", property_id=property_id))
    assert [c["kind"] for c in diff] == ["CREATED", "UPDATED", "DELETED"], diff
    created, renamed, deleted = diff
    assert created["previous"] is None and created["resource"] == full[0]["resource"]
    assert created["resource"]["alt_text"] == "Diff test"
    assert renamed["previous"] == {"alt_text": "Diff test"}
    assert renamed["resource"] == {"alt_text": "Diff test, renamed"}
    # Deleted: the record as it was last stored is what went; nothing comes after it.
    assert deleted["resource"] is None and deleted["previous"] == full[2]["resource"]
    assert deleted["previous"]["alt_text"] == "Diff test, renamed" and deleted["previous"]["id"] == image_id


def test_watch_changes_over_grpc_and_sse_carry_the_previous_values(api):
    property_id = new_property(api, prefix="DIFF", rooms=("101", "102"), floor=3)
    cursor = cursor_of(api, property_id)
    with grpc.insecure_channel(api.grpc_addr) as channel:
        # Live: subscribed before the change, so the hub's fan-out delivers it.
        live = Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id, view="DIFF"),
                         until=lambda cs: any(c["kind"] == "UPDATED" for c in cs))
        deadline = time.time() + 10
        while live.heartbeats == 0 and time.time() < deadline:
            time.sleep(0.02)
        assert live.heartbeats, "the watch was not established"
        move_room(api, property_id, "101", 4)
        assert live.done.wait(20) and live.error is None, live.error
        update = room_update(live.changes, "101")
        assert update["changed_fields"] == ["floor"]
        assert update["previous"] == {"floor": 3} and update["resource"] == {"floor": 4}, update

        # Caught up from the log: a watch from the cursor before the change, started after it.
        move_room(api, property_id, "102", 5)
        rest = feed(api, cursor, lambda cs: len([c for c in cs if c["kind"] == "UPDATED"]) == 2, view="DIFF",
                    property_id=property_id)
        catch_up = Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id, view="DIFF"),
                             until=lambda cs: len([c for c in cs if c["kind"] == "UPDATED"]) == 2)
        assert catch_up.done.wait(20) and catch_up.error is None, catch_up.error
        for number, before, after in (("101", 3, 4), ("102", 3, 5)):
            change = room_update(catch_up.changes, number)
            assert change["previous"] == {"floor": before} and change["resource"] == {"floor": after}, change
            assert change["cursor"] == room_update(rest, number)["cursor"]
        # Created rooms: the whole record, no previous values.
        created = [c for c in catch_up.changes if c["resource_type"] == "ROOM" and c["kind"] == "CREATED"]
        assert created == [] or all(c["previous"] is None and c["resource"]["number"] for c in created)
        # FULL keeps no previous values.
        full = Collector(grpc_watch(channel, cursor, timeout=30, property_id=property_id, view="FULL"),
                         until=lambda cs: len([c for c in cs if c["kind"] == "UPDATED"]) == 2)
        assert full.done.wait(20) and full.error is None, full.error
        assert all(c["previous"] is None for c in full.changes)
        assert room_update(full.changes, "101")["resource"]["number"] == "101"

    # Server-Sent Events through the gateway: each event's data is the change as GET /changes shows it.
    resp, events = sse_events(f"{api.base}/changes/stream?after={cursor}&property_id={property_id}&view=DIFF")
    try:
        seen = []
        for kind, _, data in events:
            if kind == "message":
                seen.append(data)
            if len([c for c in seen if c["kind"] == "UPDATED"]) == 2:
                break
    finally:
        resp.close()
    assert [c for c in seen if c["kind"] == "UPDATED"] == [room_update(rest, "101"), room_update(rest, "102")]


def test_a_webhook_in_view_diff_delivers_the_previous_values(api):
    property_id = new_property(api, prefix="DIFF", rooms=("101",), floor=1)
    receiver, webhook = Receiver(), {}
    try:
        created = api.post("/webhooks", {"url": receiver.url, "resource_type": ["ROOM"], "property_id": property_id,
                                         "view": "CHANGE_VIEW_DIFF"})
        assert created.status == 201, created
        webhook = created.json
        receiver.secrets.append(webhook["secret"])
        assert webhook["view"] == "CHANGE_VIEW_DIFF"
        assert api.get(f"/webhooks/{webhook['id']}").json["view"] == "CHANGE_VIEW_DIFF"
        # Stored so that a server of an earlier release, which knows full_view only, delivers it as FULL.
        assert api.psql(f"SELECT full_view, diff_view FROM webhooks WHERE id = '{webhook['id']}'") == "t|t"

        move_room(api, property_id, "101", 2)
        move_room(api, property_id, "101", 3)
        feed(api, webhook["cursor"], lambda cs: len([c for c in cs if c["kind"] == "UPDATED"]) == 2,
             resource_type="ROOM", property_id=property_id)
        expected = settled(api, receiver, webhook["cursor"], resource_type="ROOM", property_id=property_id,
                           view="DIFF")
        updates = [c for c in expected if c["kind"] == "UPDATED"]
        assert [(c["previous"], c["resource"]) for c in updates] == [({"floor": 1}, {"floor": 2}),
                                                                     ({"floor": 2}, {"floor": 3})], expected
        # (The room's creation may come after the subscription's start: the whole record, no previous.)
        assert all(c["previous"] is None and c["resource"]["number"] == "101"
                   for c in expected if c["kind"] == "CREATED")
        # The deliveries are the feed's DIFF view, as JSON, signed.
        check_delivery(receiver, expected)
        delivered = [c for r in receiver.deliveries() for c in json.loads(r["body"])["data"]]
        assert [c["previous"] for c in delivered if c["kind"] == "UPDATED"] == [{"floor": 1}, {"floor": 2}]

        # Back to FULL: the next deliveries carry no previous values.
        full = api.patch(f"/webhooks/{webhook['id']}", {"view": "CHANGE_VIEW_FULL"})
        assert full.status == 200 and full.json["view"] == "CHANGE_VIEW_FULL", full
        assert api.psql(f"SELECT full_view, diff_view FROM webhooks WHERE id = '{webhook['id']}'") == "t|f"
        move_room(api, property_id, "101", 4)
        deadline = time.time() + 20
        while len(receiver.changes()) <= len(expected) and time.time() < deadline:
            time.sleep(0.05)
        last = receiver.changes()[-1]
        assert last["previous"] is None and last["resource"]["floor"] == 4, last
    finally:
        if webhook:
            api.request("DELETE", f"/webhooks/{webhook['id']}")
        receiver.close()
