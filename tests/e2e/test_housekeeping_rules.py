"""Housekeeping's rules of 1.5.0 (docs/housekeeping.md) through the real gateway, server and PostgreSQL: the
property's housekeeping policy (defaults, masked PATCH with etags, values out of range, the feed, concurrent
writers), check-out, the order of occupancy observations, the return condition that only lowers, and no room
taken out of order or out of service while a guest is in it."""
import concurrent.futures
import json
import os
import subprocess
import uuid

import pytest

from conftest import local_stack, new_property
from stack import BIN, wait_for
from test_change_diff import cursor_of, feed

HAS_GRPCURL = os.path.exists(os.path.join(BIN, "grpcurl"))
CHECKOUT = "Check-out: DIRTY by the housekeeping policy"
DEFAULTS = {"checkout_condition": "DIRTY", "occupied_nightly_condition": "DIRTY", "vacant_nightly_downgrade": "NONE",
            "vacant_dirty_after_days": 0, "inspection_required": True}


@pytest.fixture(scope="module")
def api():
    """A stack of this module's own: its properties stay out of the shared stack's lists and counts."""
    stack = local_stack("hotel_housekeeping_rules")
    yield stack
    stack.stop()


def grpcurl(api, method, body, service="HousekeepingService"):
    out = subprocess.run([os.path.join(BIN, "grpcurl"), "-plaintext", "-format-error", "-d", json.dumps(body),
                          api.grpc_addr, f"hotel.v1.{service}/{method}"], capture_output=True, text=True, timeout=20)
    return out.returncode, out.stdout, out.stderr


def policy_path(property_id):
    return f"/properties/{property_id}/housekeeping-policy"


def housekeeping(api, property_id, number):
    room = api.get(f"/rooms/{number}?property_id={property_id}")
    assert room.status == 200, room
    return room.json["housekeeping"]


def history(api, property_id, number):
    page = api.get(f"/rooms/{number}/housekeeping/history?property_id={property_id}&page_size=500")
    assert page.status == 200, page
    return page.json["data"]


def patch(api, property_id, number, body):
    return api.patch(f"/rooms/{number}/housekeeping?property_id={property_id}", body)


def bulk(api, property_id, numbers, **body):
    return api.post(f"/properties/{property_id}/rooms:setHousekeeping", {"room_numbers": numbers, **body})


def occupy(api, property_id, numbers, observed="2026-01-02T10:00:00Z", **body):
    done = bulk(api, property_id, numbers, occupancy="OCCUPIED", occupancy_source="opera-pms",
                occupancy_observe_time=observed, **body)
    assert done.status == 200 and all(r["occupancy_applied"] for r in done.json["rooms"]), done
    return done


def settled_cursor(api, property_id):
    """The feed's position after every change made so far: none is still staged for sequencing (the stack is
    this module's, and its tests run one at a time)."""
    assert wait_for(lambda: api.psql("SELECT count(*) FROM change_staging") == "0", 10)
    return cursor_of(api, property_id)


def inspected_and_occupied(api, property_id, numbers):
    assert bulk(api, property_id, numbers, condition="CLEAN").status == 200
    assert bulk(api, property_id, numbers, condition="INSPECTED").status == 200
    occupy(api, property_id, numbers)


# The policy.

def test_a_property_without_a_policy_answers_the_defaults(api):
    property_id = new_property(api)
    got = api.get(policy_path(property_id))
    assert got.status == 200, got
    assert {k: got.json[k] for k in DEFAULTS} == DEFAULTS, got
    assert got.json["property_id"] == property_id and got.json["updated_by"] == "", got
    assert got.headers["ETag"] == f'"{got.json["etag"]}"', got.headers
    assert api.get(policy_path(property_id), headers={"If-None-Match": got.headers["ETag"]}).status == 304
    missing = api.get(policy_path("NOPE9"))
    assert missing.status == 404 and missing.reason() == "PROPERTY_NOT_FOUND", missing
    if HAS_GRPCURL:
        code, out, err = grpcurl(api, "GetHousekeepingPolicy", {"property_id": property_id})
        assert code == 0 and json.loads(out)["checkout_condition"] == "DIRTY", err


def test_a_patch_changes_the_named_fields_honours_the_etag_and_is_on_the_feed(api):
    property_id = new_property(api)
    cursor = cursor_of(api, property_id)
    etag = api.get(policy_path(property_id)).json["etag"]
    first = api.patch(policy_path(property_id), {"checkout_condition": "KEEP", "inspection_required": False,
                                                 "updated_by": "Ana"}, headers={"If-Match": f'"{etag}"'})
    assert first.status == 200, first
    assert first.json["checkout_condition"] == "KEEP" and first.json["inspection_required"] is False, first
    assert first.json["occupied_nightly_condition"] == "DIRTY" and first.json["updated_by"] == "Ana", first
    assert first.headers["ETag"] == f'"{first.json["etag"]}"' and first.json["etag"] != etag, first
    stale = api.patch(policy_path(property_id), {"vacant_dirty_after_days": 3}, headers={"If-Match": f'"{etag}"'})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    second = api.patch(policy_path(property_id), {"vacant_dirty_after_days": 3, "etag": first.json["etag"]})
    assert second.status == 200 and second.json["vacant_dirty_after_days"] == 3, second
    assert second.json["checkout_condition"] == "KEEP", "a field the body does not name keeps its value"
    same = api.patch(policy_path(property_id), {"vacant_dirty_after_days": 3})
    assert same.status == 200 and same.json["etag"] == second.json["etag"], "nothing changed, nothing written"
    assert api.get(policy_path(property_id)).json == second.json

    changes = feed(api, cursor, lambda cs: len(cs) >= 2, resource_type="HOUSEKEEPING_POLICY",
                   property_id=property_id, view="CHANGE_VIEW_DIFF")
    assert [(c["resource_id"], c["kind"], c["actor"]) for c in changes] == [
        (property_id, "CREATED", "Ana"), (property_id, "UPDATED", "api")], changes
    assert changes[1]["changed_fields"] == ["vacant_dirty_after_days"], changes
    assert changes[1]["previous"] == {"vacant_dirty_after_days": 0}, changes
    assert [c["etag"] for c in changes] == [first.json["etag"], second.json["etag"]], changes


@pytest.mark.parametrize("body, field", [
    ({"vacant_dirty_after_days": 8}, "vacant_dirty_after_days"),
    ({"vacant_dirty_after_days": -1}, "vacant_dirty_after_days"),
    ({"checkout_condition": "SPARKLING"}, "checkout_condition"),
    ({"vacant_nightly_downgrade": "VACANT_DOWNGRADE_UNSPECIFIED"}, "vacant_nightly_downgrade"),
    ({"occupied_nightly_condition": "INSPECTED_TO_CLEAN"}, "occupied_nightly_condition"),
])
def test_a_value_out_of_range_is_400_naming_the_field(api, body, field):
    property_id = new_property(api)
    refused = api.patch(policy_path(property_id), body)
    assert refused.status == 400 and refused.violations() == [field], refused
    assert api.get(policy_path(property_id)).json["updated_by"] == "", "nothing was stored"


@pytest.mark.skipif(not HAS_GRPCURL, reason="grpcurl not built")
def test_a_policy_over_grpc_and_an_enum_number_it_does_not_know(api):
    property_id = new_property(api)
    code, _, err = grpcurl(api, "UpdateHousekeepingPolicy", {"property_id": property_id,
                                                             "policy": {"checkout_condition": 7}})
    assert code != 0 and json.loads(err)["code"] == 3 and "checkout_condition" in err, err
    code, out, err = grpcurl(api, "UpdateHousekeepingPolicy", {
        "property_id": property_id, "policy": {"vacant_nightly_downgrade": "INSPECTED_TO_CLEAN",
                                               "inspection_required": False},
        "update_mask": {"paths": ["vacant_nightly_downgrade", "inspection_required"]}})
    assert code == 0, err
    assert json.loads(out)["vacant_nightly_downgrade"] == "INSPECTED_TO_CLEAN", out
    assert api.get(policy_path(property_id)).json["inspection_required"] is False


def test_concurrent_patches_lose_and_double_nothing_on_the_feed(api):
    """Writers that read, change and write back with If-Match, all starting from the defaults (so they race for
    the first insert too): no 5xx; every acknowledged write is one change on the feed, in version order."""
    property_id = new_property(api)
    cursor = cursor_of(api, property_id)
    failures, acknowledged = [], []

    def worker(seed):
        done = 0
        while done < 5:
            current = api.get(policy_path(property_id))
            days = current.json["vacant_dirty_after_days"] % 7 + 1
            written = api.patch(policy_path(property_id), {"vacant_dirty_after_days": days, "updated_by": f"w{seed}"},
                                headers={"If-Match": current.headers["ETag"]})
            if written.status >= 500:
                failures.append(written)
                return
            if written.status == 200:
                acknowledged.append(written.json["etag"])
                done += 1
            else:
                assert written.status == 409 and written.reason() == "ETAG_MISMATCH", written

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    assert not failures, failures[:3]
    assert len(acknowledged) == 40 and len(set(acknowledged)) == 40
    changes = feed(api, cursor, lambda cs: len(cs) >= 40, resource_type="HOUSEKEEPING_POLICY",
                   property_id=property_id)
    assert sorted(c["etag"] for c in changes) == sorted(acknowledged), "each write once, none lost"
    assert [c["kind"] for c in changes] == ["CREATED"] + ["UPDATED"] * 39, changes
    assert changes[-1]["etag"] == api.get(policy_path(property_id)).json["etag"]


# Check-out.

def test_a_check_out_dirties_the_room_and_says_why(api):
    property_id = new_property(api, rooms=["101", "102", "103"])
    inspected_and_occupied(api, property_id, ["101", "102", "103"])
    one = patch(api, property_id, "101", {"occupancy": "VACANT", "occupancy_source": "opera-pms"})
    assert one.status == 200 and one.json["occupancy_applied"] is True, one
    assert (one.json["condition"], one.json["occupancy"], one.json["reason"]) == ("DIRTY", "VACANT", CHECKOUT), one
    # Its reason first when it gives one; an explicit condition in the same write wins.
    done = bulk(api, property_id, ["102"], occupancy="VACANT", occupancy_source="opera-pms", reason="Departure")
    assert done.json["rooms"][0]["condition"] == "DIRTY", done
    assert done.json["rooms"][0]["reason"] == f"Departure ({CHECKOUT})", done
    done = bulk(api, property_id, ["103"], occupancy="VACANT", occupancy_source="opera-pms", condition="CLEAN")
    assert done.json["rooms"][0]["condition"] == "CLEAN" and done.json["rooms"][0]["reason"] == "", done
    entry = history(api, property_id, "101")[0]
    assert (entry["previous_condition"], entry["condition"], entry["previous_occupancy"], entry["occupancy"],
            entry["reason"]) == ("INSPECTED", "DIRTY", "OCCUPIED", "VACANT", CHECKOUT), entry
    # Vacant to vacant is no check-out.
    assert bulk(api, property_id, ["103"], condition="INSPECTED").status == 200
    again = patch(api, property_id, "103", {"occupancy": "VACANT", "occupancy_source": "opera-pms"})
    assert again.json["condition"] == "INSPECTED", again


def test_a_policy_that_keeps_the_condition_at_check_out(api):
    property_id = new_property(api, rooms=["101"])
    assert api.patch(policy_path(property_id), {"checkout_condition": "KEEP"}).status == 200
    inspected_and_occupied(api, property_id, ["101"])
    done = patch(api, property_id, "101", {"occupancy": "VACANT", "occupancy_source": "opera-pms"})
    assert done.status == 200 and (done.json["condition"], done.json["occupancy"]) == ("INSPECTED", "VACANT"), done


# The order of observations.

def test_an_occupancy_observed_before_the_stored_one_changes_nothing(api):
    property_id = new_property(api, rooms=["101", "102"])
    inspected_and_occupied(api, property_id, ["101", "102"])
    cursor = settled_cursor(api, property_id)
    entries = len(history(api, property_id, "101"))
    stale = patch(api, property_id, "101", {"occupancy": "VACANT", "occupancy_source": "opera-pms",
                                            "occupancy_observe_time": "2026-01-02T09:59:59Z"})
    assert stale.status == 200 and stale.json["occupancy_applied"] is False, stale
    assert (stale.json["occupancy"], stale.json["condition"]) == ("OCCUPIED", "INSPECTED"), stale
    assert stale.json["occupancy_observe_time"] == "2026-01-02T10:00:00Z", stale
    assert len(history(api, property_id, "101")) == entries
    # Per room in a bulk write; an equal observation applies, and a condition in a stale write still does.
    both = bulk(api, property_id, ["101", "102"], occupancy="VACANT", occupancy_source="opera-pms",
                occupancy_observe_time="2026-01-02T10:00:00Z")
    assert [r["occupancy_applied"] for r in both.json["rooms"]] == [True, True], both
    occupy(api, property_id, ["102"], observed="2026-01-02T11:00:00Z")
    mixed = bulk(api, property_id, ["101", "102"], occupancy="VACANT", occupancy_source="opera-pms",
                 occupancy_observe_time="2026-01-02T10:30:00Z", condition="CLEAN", reason="Turndown")
    assert mixed.status == 200, mixed
    assert [(r["occupancy_applied"], r["occupancy"], r["condition"]) for r in mixed.json["rooms"]] == [
        (True, "VACANT", "CLEAN"), (False, "OCCUPIED", "CLEAN")], mixed
    # On the feed: no change for the stale write; the others' changes are there (room 102's after its stale
    # occupancy is its condition only).
    changes = feed(api, cursor, lambda cs: len(cs) >= 5, resource_type="ROOM", property_id=property_id,
                   view="CHANGE_VIEW_DIFF")
    assert [c["resource_id"] for c in changes] == ["101", "102", "102", "101", "102"], changes
    last = changes[-1]
    assert "housekeeping_occupancy" not in last["changed_fields"], last
    assert last["resource"]["housekeeping_condition"] == "CLEAN", last


# The return condition only lowers.

def test_back_in_order_a_room_takes_the_stricter_of_its_condition_and_the_return_condition(api):
    property_id = new_property(api, rooms=["101", "102", "103"])
    assert bulk(api, property_id, ["102", "103"], condition="CLEAN").status == 200
    assert bulk(api, property_id, ["103"], condition="INSPECTED").status == 200
    today = api.psql("SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD')")
    block = api.post("/room-blocks", {"property_id": property_id, "room_number": "101", "type": "OUT_OF_ORDER",
                                      "start_date": today, "return_condition": "INSPECTED"})
    assert block.status == 201, block
    issues = {}
    for number, returns in [("102", "INSPECTED"), ("103", "CLEAN")]:
        created = api.post("/issues", {"property_id": property_id, "room_number": number, "title": "Leak",
                                       "category": "PLUMBING", "reported_by": "Desk", "take_room_out_of_order": True,
                                       "return_condition": returns})
        assert created.status == 201, created
        issues[number] = created.json["id"]
    assert api.post(f"/room-blocks/{block.json['id']}:cancel", {"updated_by": "Desk"}).status == 200
    for id_ in issues.values():
        assert api.patch(f"/issues/{id_}", {"status": "RESOLVED", "updated_by": "Tech"}).status == 200
    # DIRTY is not raised to INSPECTED, CLEAN not to INSPECTED; INSPECTED is lowered to CLEAN.
    assert [housekeeping(api, property_id, n)["condition"] for n in ["101", "102", "103"]] == [
        "DIRTY", "CLEAN", "CLEAN"]
    entry = history(api, property_id, "101")[0]
    assert entry["reason"].startswith("Back in order") and entry["updated_by"] == "Desk", entry


# No room out of order or out of service while a guest is in it.

def take(api, property_id, number, how, allow):
    """Takes the room out of order or service (block or issue, created or updated); returns the answer."""
    extra = {"allow_occupied": True} if allow else {}
    today = api.psql("SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD')")
    if how in ("OUT_OF_ORDER", "OUT_OF_SERVICE"):
        return api.post("/room-blocks", {"property_id": property_id, "room_number": number, "type": how,
                                         "start_date": today, "reason": "Smoke detector", **extra})
    issue = {"property_id": property_id, "room_number": number, "title": "Smoke detector", "category": "SAFETY",
             "reported_by": "Desk"}
    if how == "issue":
        return api.post("/issues", {**issue, "take_room_out_of_order": True, **extra})
    created = api.post("/issues", issue)
    assert created.status == 201, created
    return api.patch(f"/issues/{created.json['id']}", {"take_room_out_of_order": True, **extra})


@pytest.mark.parametrize("how", ["OUT_OF_ORDER", "OUT_OF_SERVICE", "issue", "issue update"])
def test_an_occupied_room_is_not_taken_out_of_order_or_service(api, how):
    property_id = new_property(api, rooms=["101", "102", "103"])
    occupy(api, property_id, ["101", "102"])
    refused = take(api, property_id, "101", how, allow=False)
    assert refused.status == 400 and refused.reason() == "ROOM_OCCUPIED", refused
    assert "room 101" in refused.json["message"] and "allow_occupied" in refused.json["message"], refused
    room = api.get(f"/rooms/101?property_id={property_id}").json
    assert room["available"] is True and room["out_of_order_reason"] == "", room
    allowed = take(api, property_id, "102", how, allow=True)
    assert allowed.status in (200, 201), allowed
    unknown = take(api, property_id, "103", how, allow=False)
    assert unknown.status in (200, 201), "UNKNOWN occupancy passes"


def test_a_block_from_tomorrow_and_a_batch_item_naming_its_index(api):
    property_id = new_property(api, rooms=["101", "102"])
    occupy(api, property_id, ["102"])
    tomorrow = api.psql("SELECT to_char((now() AT TIME ZONE 'Europe/Berlin')::date + 1, 'YYYY-MM-DD')")
    later = api.post("/room-blocks", {"property_id": property_id, "room_number": "102", "type": "OUT_OF_ORDER",
                                      "start_date": tomorrow})
    assert later.status == 201, "the guest may be gone tomorrow"
    today = api.psql("SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD')")
    items = [{"property_id": property_id, "room_number": n, "type": "OUT_OF_SERVICE", "start_date": today}
             for n in ["101", "102"]]
    refused = api.post("/room-blocks:batchCreate", {"requests": items})
    assert refused.status == 400 and refused.reason() == "ROOM_OCCUPIED", refused
    assert refused.json["message"].startswith("requests[1]"), refused
    listed = api.get(f"/room-blocks?property_id={property_id}&room_number=101")
    assert listed.status == 200 and listed.json["data"] == [], "nothing was created"


@pytest.mark.skipif(not HAS_GRPCURL, reason="grpcurl not built")
def test_an_occupied_room_refused_over_grpc(api):
    property_id = new_property(api, rooms=["101"])
    occupy(api, property_id, ["101"])
    today = api.psql("SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD')")
    block = {"property_id": property_id, "room_number": "101", "type": "OUT_OF_ORDER", "start_date": today,
             "request_id": str(uuid.uuid4())}
    code, _, err = grpcurl(api, "CreateRoomBlock", block, service="RoomBlockService")
    assert code != 0 and json.loads(err)["code"] == 9 and "ROOM_OCCUPIED" in err, err
    code, out, err = grpcurl(api, "CreateRoomBlock", {**block, "allow_occupied": True}, service="RoomBlockService")
    assert code == 0 and json.loads(out)["type"] == "OUT_OF_ORDER", err
