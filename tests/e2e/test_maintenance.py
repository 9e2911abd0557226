"""Maintenance through the real gateway: equipment, schedules, issues, the room overview, issue
statistics and the summary, with bad input, etags, idempotent retries and races."""
import json
import os
import threading
import uuid

import pytest

from stack import BIN


def ids(resp, key="id"):
    return [item[key] for item in resp.json["data"]]


def new_issue(api, **fields):
    body = {"property_id": "BER1", "room_number": "104", "title": "Shower drains slowly",
            "category": "PLUMBING", "priority": "MEDIUM", "reported_by": "e2e"}
    body.update(fields)
    resp = api.post("/issues", body)
    assert resp.status == 201, resp
    return resp.json


def patch(api, issue_id, body, **kw):
    return api.patch(f"/issues/{issue_id}", body, **kw)


def room(api, number, property_id="BER1"):
    resp = api.get(f"/rooms/{number}?property_id={property_id}")
    assert resp.status == 200, resp
    return resp.json


def berlin_today(api, plus_days=0):
    return api.psql(f"SELECT to_char((now() AT TIME ZONE 'Europe/Berlin')::date + {plus_days}, 'YYYY-MM-DD')")


def names_field(resp, field):
    """Whether the error's google.rpc.BadRequest has a violation for the field (the server's, or
    the gateway's for JSON it could not decode, such as an unknown enum name)."""
    return field in resp.violations()


def run_concurrently(count, fn):
    results = [None] * count
    barrier = threading.Barrier(count)

    def worker(i):
        barrier.wait()
        results[i] = fn(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


# ---- Issues -----------------------------------------------------------------------------------

def test_report_an_issue_and_read_it_with_its_timeline(api):
    issue = new_issue(api, description="Water stands for minutes.", assignee="Jonas")
    assert issue["status"] == "OPEN" and issue["priority"] == "MEDIUM" and issue["category"] == "PLUMBING"
    assert issue["allowed_transitions"] == ["IN_PROGRESS", "ON_HOLD", "RESOLVED", "CANCELLED"]
    assert issue["etag"] and issue["created_at"].endswith("Z") and issue["resolved_at"] is None
    assert issue["overdue"] is False and issue["resolve_by"] > issue["created_at"]
    assert [e["type"] for e in issue["timeline"]] == ["CREATED"]
    uuid.UUID(issue["id"])

    resp = api.get(f"/issues/{issue['id']}")
    assert resp.status == 200, resp
    assert resp.json["title"] == "Shower drains slowly" and resp.json["etag"] == issue["etag"]
    entry = resp.json["timeline"][0]
    assert set(entry) >= {"id", "at", "actor", "type", "from", "to", "note"}
    assert entry["actor"] == "e2e" and entry["to"] == "OPEN"

    assert api.get("/issues/00000000-0000-4000-8000-000000000000").reason() == "ISSUE_NOT_FOUND"
    bad = api.get("/issues/not-a-uuid")
    assert bad.status == 400 and bad.violations() == ["id"], bad


@pytest.mark.parametrize("change, status, reason, field", [
    ({"title": ""}, 400, "INVALID_ARGUMENT", "title"),
    ({"title": None}, 400, "INVALID_ARGUMENT", "title"),
    ({"category": "LEAKS"}, 400, None, "category"),
    ({"category": "plumbing"}, 400, None, "category"),
    ({"priority": "CRITICAL"}, 400, None, "priority"),
    ({"reported_by": ""}, 400, "INVALID_ARGUMENT", "reported_by"),
    ({"property_id": ""}, 400, "PROPERTY_ID_REQUIRED", "property_id"),
    ({"room_number": "999"}, 404, "ROOM_NOT_FOUND", None),
    ({"property_id": "NOPE1"}, 404, "PROPERTY_NOT_FOUND", None),
    ({"equipment_id": "00000000-0000-4000-8000-000000000000"}, 404, "EQUIPMENT_NOT_FOUND", None),
    ({"equipment_id": "bad"}, 400, "INVALID_ARGUMENT", "equipment_id"),
    ({"colour": "red"}, 400, "UNKNOWN_FIELD", "colour"),
    ({"request_id": "no spaces allowed"}, 400, "INVALID_ARGUMENT", "request_id"),
])
def test_reporting_an_issue_with_bad_input(api, change, status, reason, field):
    body = {"property_id": "BER1", "room_number": "104", "title": "Bad input", "category": "PLUMBING",
            "reported_by": "e2e"}
    body.update(change)
    body = {k: v for k, v in body.items() if v is not None}
    resp = api.post("/issues", body)
    assert resp.status == status, resp
    if reason:
        assert resp.reason() == reason, resp
    if field:
        assert names_field(resp, field), resp


def test_issue_status_machine_etags_and_the_timeline(api):
    issue = new_issue(api)
    first_etag = issue["etag"]

    resp = patch(api, issue["id"], {"status": "IN_PROGRESS", "assignee": "Jonas", "updated_by": "Jonas"})
    assert resp.status == 200, resp
    started = resp.json
    assert started["status"] == "IN_PROGRESS" and started["assignee"] == "Jonas"
    assert started["etag"] != first_etag and started["first_response_at"]
    assert started["allowed_transitions"] == ["ON_HOLD", "RESOLVED"]
    assert [e["type"] for e in started["timeline"]] == ["CREATED", "STATUS_CHANGED", "ASSIGNEE_CHANGED"]
    assert started["timeline"][1]["from"] == "OPEN" and started["timeline"][1]["to"] == "IN_PROGRESS"
    assert started["timeline"][1]["actor"] == "Jonas"

    # Not in the table: 409 INVALID_TRANSITION, nothing changes.
    refused = patch(api, issue["id"], {"status": "CLOSED"})
    assert refused.status == 409 and refused.reason() == "INVALID_TRANSITION", refused
    # ON_HOLD needs a reason.
    no_reason = patch(api, issue["id"], {"status": "ON_HOLD"})
    assert no_reason.status == 400 and no_reason.reason() == "REASON_REQUIRED" and no_reason.violations() == ["reason"]
    # A stale etag in the body or in If-Match: 409 ETAG_MISMATCH, nothing merged.
    stale = patch(api, issue["id"], {"title": "Merged?", "etag": first_etag})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    stale_header = patch(api, issue["id"], {"title": "Merged?"}, headers={"If-Match": f'"{first_etag}"'})
    assert stale_header.status == 409 and stale_header.reason() == "ETAG_MISMATCH", stale_header
    assert api.get(f"/issues/{issue['id']}").json["title"] == "Shower drains slowly"

    held = patch(api, issue["id"], {"status": "ON_HOLD", "reason": "Waiting for a part"},
                 headers={"If-Match": f'"{started["etag"]}"'})
    assert held.status == 200, held
    assert held.json["reason"] == "Waiting for a part"
    assert held.json["timeline"][-1]["note"] == "Waiting for a part"

    comment = patch(api, issue["id"], {"comment": "Part arrives Monday", "etag": held.json["etag"]})
    assert comment.status == 200 and comment.json["timeline"][-1]["type"] == "COMMENT"
    assert comment.json["comment"] == ""  # input only

    resolved = patch(api, issue["id"], {"status": "IN_PROGRESS"}).json
    resolved = patch(api, issue["id"], {"status": "RESOLVED"}).json
    assert resolved["status"] == "RESOLVED" and resolved["resolved_at"]
    reopened = patch(api, issue["id"], {"status": "IN_PROGRESS"}).json
    assert reopened["resolved_at"] is None
    patch(api, issue["id"], {"status": "RESOLVED"})
    closed = patch(api, issue["id"], {"status": "CLOSED"}).json
    assert closed["status"] == "CLOSED" and closed["allowed_transitions"] == []
    assert patch(api, issue["id"], {"status": "OPEN"}).reason() == "INVALID_TRANSITION"
    types = [e["type"] for e in api.get(f"/issues/{issue['id']}").json["timeline"]]
    assert types.count("STATUS_CHANGED") == 7 and types.count("COMMENT") == 1


def test_patch_with_bad_input(api):
    issue = new_issue(api)
    unknown = patch(api, issue["id"], {"colour": "red"})
    assert unknown.status == 400 and "colour" in unknown.violations(), unknown
    immutable = patch(api, issue["id"], {"room_number": "105"})
    assert immutable.status == 400 and immutable.violations() == ["room_number"], immutable
    bad_enum = patch(api, issue["id"], {"priority": "SOON"})
    assert bad_enum.status == 400, bad_enum
    reason_alone = patch(api, issue["id"], {"reason": "why"})
    assert reason_alone.status == 400 and reason_alone.violations() == ["reason"]
    cancel = patch(api, issue["id"], {"status": "CANCELLED"})
    assert cancel.status == 400 and cancel.reason() == "REASON_REQUIRED"
    missing = patch(api, "00000000-0000-4000-8000-000000000000", {"title": "x"})
    assert missing.status == 404 and missing.reason() == "ISSUE_NOT_FOUND"
    # Sending the issue back as read changes nothing (output-only fields are ignored).
    current = api.get(f"/issues/{issue['id']}").json
    same = patch(api, issue["id"], current)
    assert same.status == 200, same
    assert same.json["etag"] == current["etag"]


def test_concurrent_patches_with_one_etag_have_one_winner(api):
    issue = new_issue(api, room_number="105")
    results = run_concurrently(6, lambda i: patch(api, issue["id"], {"title": f"Title {i}", "etag": issue["etag"]}))
    statuses = sorted(r.status for r in results)
    assert statuses == [200, 409, 409, 409, 409, 409], results
    assert all(r.reason() == "ETAG_MISMATCH" for r in results if r.status == 409)
    timeline = api.get(f"/issues/{issue['id']}").json["timeline"]
    assert [e["type"] for e in timeline] == ["CREATED", "FIELD_CHANGED"]


def test_an_issue_takes_its_room_out_of_order_and_gives_it_back(api):
    assert room(api, "106")["available"] is True
    issue = new_issue(api, room_number="106", title="Ceiling leak", take_room_out_of_order=True)
    assert issue["take_room_out_of_order"] is True
    assert [e["type"] for e in issue["timeline"]] == ["CREATED", "ROOM_OUT_OF_ORDER"]
    r = room(api, "106")
    assert r["available"] is False and r["out_of_order"] is True
    assert r["out_of_order_reason"] == "Maintenance issue: Ceiling leak"
    unavailable = api.get("/rooms?property_id=BER1&available=false&page_size=500")
    assert "106" in ids(unavailable, "number")

    resolved = patch(api, issue["id"], {"status": "RESOLVED"}).json
    assert resolved["take_room_out_of_order"] is False
    assert resolved["timeline"][-1]["type"] == "ROOM_BACK_IN_SERVICE"
    assert room(api, "106")["available"] is True
    available = api.get("/rooms?property_id=BER1&available=true&page_size=500")
    assert "106" in ids(available, "number")

    # Taking it later by PATCH, and cancelling returns it again.
    other = new_issue(api, room_number="106", title="Broken window")
    taken = patch(api, other["id"], {"take_room_out_of_order": True})
    assert taken.status == 200 and room(api, "106")["available"] is False
    patch(api, other["id"], {"status": "CANCELLED", "reason": "Duplicate"})
    assert room(api, "106")["available"] is True
    # A closed issue cannot hold a room.
    refused = patch(api, other["id"], {"take_room_out_of_order": True})
    assert refused.status == 400 and refused.reason() == "ISSUE_NOT_OPEN", refused


def test_reporting_twice_with_one_request_id_creates_one_issue(api):
    request_id = str(uuid.uuid4())
    first = new_issue(api, room_number="107", request_id=request_id)
    again = new_issue(api, room_number="107", request_id=request_id)
    assert again["id"] == first["id"]
    other = api.post("/issues", {"property_id": "BER1", "room_number": "107", "title": "Different",
                                 "category": "OTHER", "reported_by": "e2e", "request_id": request_id})
    assert other.status == 400 and other.reason() == "REQUEST_ID_REUSED", other

    racing_id = str(uuid.uuid4())
    results = run_concurrently(6, lambda i: api.post("/issues", {
        "property_id": "BER1", "room_number": "107", "title": "Racing", "category": "OTHER",
        "reported_by": "e2e", "request_id": racing_id}))
    assert all(r.status == 201 for r in results), results
    assert len({r.json["id"] for r in results}) == 1
    assert api.psql(f"SELECT count(*) FROM issues WHERE request_id = '{racing_id}'") == "1"


def test_list_issues_filters_and_pages(api):
    mine = [new_issue(api, room_number="108", title=f"List {i}", priority="LOW", category="FURNITURE_FIXTURES")["id"]
            for i in range(5)]
    resp = api.get("/issues?property_id=BER1&room_number=108&priority=LOW&category=FURNITURE_FIXTURES&page_size=2")
    assert resp.status == 200, resp
    seen, token = [], None
    while True:
        page = api.get("/issues?property_id=BER1&room_number=108&priority=LOW&category=FURNITURE_FIXTURES"
                       f"&page_size=2&page_token={token or ''}")
        assert page.status == 200 and len(page.json["data"]) <= 2
        for issue in page.json["data"]:
            assert issue["timeline"] == [] and issue["priority"] == "LOW"
        seen += ids(page)
        token = page.json["next_page_token"]
        if not token:
            break
    assert seen[:5] == list(reversed(mine))  # newest first

    open_ones = api.get("/issues?status=OPEN&page_size=500")
    assert open_ones.status == 200 and all(i["status"] == "OPEN" for i in open_ones.json["data"])
    lisbon = api.get("/issues?property_id=LIS1&page_size=500")
    assert lisbon.json["data"] and all(i["property_id"] == "LIS1" for i in lisbon.json["data"])
    created = [i["created_at"] for i in lisbon.json["data"]]
    assert created == sorted(created, reverse=True)

    foreign = api.get(f"/issues?status=CLOSED&page_token={resp.json['next_page_token']}")
    assert foreign.status == 400 and foreign.reason() == "INVALID_PAGE_TOKEN"


@pytest.mark.parametrize("query, field", [
    ("status=DONE", "status"),
    ("status=open", "status"),
    ("priority=SOON", "priority"),
    ("category=LEAKS", "category"),
    ("property_id=berlin", "property_id"),
    ("room_number=101", "property_id"),
    ("page_size=-1", "page_size"),
    ("page_token=garbage!!", "page_token"),
])
def test_list_issues_bad_filters(api, query, field):
    resp = api.get("/issues?" + query)
    assert resp.status == 400, resp
    assert field in resp.violations(), resp


# ---- Equipment --------------------------------------------------------------------------------

def test_equipment_of_a_room(api):
    before = room(api, "109")["equipment_count"]
    listed = api.get("/rooms/109/equipment?property_id=BER1")
    assert listed.status == 200 and len(listed.json["data"]) == before > 0
    assert {e["type"] for e in listed.json["data"]} >= {"tv", "air_conditioner"}

    body = {"property_id": "BER1", "name": "Bathroom extractor fan", "type": "extractor_fan",
            "manufacturer": "Vent-Axia", "model": "Lo-Carbon", "serial_number": "VA-109",
            "installed_on": "2024-03-01", "warranty_expires_on": "2027-02-28", "request_id": str(uuid.uuid4())}
    created = api.post("/rooms/109/equipment", body)
    assert created.status == 201, created
    fan = created.json
    assert fan["status"] == "OPERATIONAL" and fan["room_number"] == "109" and fan["installed_on"] == "2024-03-01"
    assert api.post("/rooms/109/equipment", body).json["id"] == fan["id"]  # retried
    assert room(api, "109")["equipment_count"] == before + 1
    assert ids(api.get("/rooms/109/equipment?property_id=BER1"))[-1] == fan["id"]
    down = api.get("/rooms/506/equipment?property_id=BER1&status=DOWN")
    assert [e["type"] for e in down.json["data"]] == ["minibar_fridge"]


@pytest.mark.parametrize("path, body, status, reason, field", [
    ("/rooms/109/equipment", {"name": "Fan", "type": "fan"}, 400, "PROPERTY_ID_REQUIRED", "property_id"),
    ("/rooms/999/equipment", {"property_id": "BER1", "name": "Fan", "type": "fan"}, 404, "ROOM_NOT_FOUND", None),
    ("/rooms/109/equipment", {"property_id": "BER1", "type": "fan"}, 400, "INVALID_ARGUMENT", "name"),
    ("/rooms/109/equipment", {"property_id": "BER1", "name": "Fan", "type": "Big Fan"}, 400, None, "type"),
    ("/rooms/109/equipment", {"property_id": "BER1", "name": "Fan", "type": "fan", "installed_on": "01.02.2024"},
     400, None, "installed_on"),
    ("/rooms/109/equipment", {"property_id": "BER1", "name": "Fan", "type": "fan", "status": "BROKEN"}, 400, None,
     "status"),
    ("/rooms/109/equipment", {"property_id": "BER1", "name": "Fan", "type": "fan", "colour": "red"}, 400,
     "UNKNOWN_FIELD", "colour"),
])
def test_registering_equipment_with_bad_input(api, path, body, status, reason, field):
    resp = api.post(path, body)
    assert resp.status == status, resp
    if reason:
        assert resp.reason() == reason
    if field:
        assert names_field(resp, field), resp


def test_listing_equipment_needs_a_known_room(api):
    assert api.get("/rooms/109/equipment").reason() == "PROPERTY_ID_REQUIRED"
    assert api.get("/rooms/999/equipment?property_id=BER1").reason() == "ROOM_NOT_FOUND"
    assert api.get("/rooms/109/equipment?property_id=BER1&status=BROKEN").status == 400


def test_an_issue_can_name_equipment_of_its_room_only(api):
    fan = api.get("/rooms/110/equipment?property_id=BER1").json["data"][0]
    issue = new_issue(api, room_number="110", equipment_id=fan["id"])
    assert issue["equipment_id"] == fan["id"]
    elsewhere = api.post("/issues", {"property_id": "BER1", "room_number": "104", "title": "x", "category": "OTHER",
                                     "reported_by": "e2e", "equipment_id": fan["id"]})
    assert elsewhere.status == 404 and elsewhere.reason() == "EQUIPMENT_NOT_FOUND"


# ---- Schedules --------------------------------------------------------------------------------

def new_schedule(api, **fields):
    body = {"property_id": "BER1", "room_number": "201", "task": "Descale kettle", "interval_unit": "MONTH",
            "interval_count": 1, "starts_on": berlin_today(api)}
    body.update(fields)
    resp = api.post("/maintenance/schedules", body)
    assert resp.status == 201, resp
    return resp.json


@pytest.mark.parametrize("kind", ["equipment", "schedule"])
def test_racing_creates_store_each_request_once_and_explain_what_they_did_not_store(api, kind):
    """Many workers at once on one room: a request_id sent by several gives one record to all of
    them, every other request_id its own; then the reasons a create stores nothing."""
    if kind == "equipment":
        path, table = "/rooms/208/equipment", "equipment"
        body = {"property_id": "BER1", "name": "Racing fan", "type": "fan"}
    else:
        path, table = "/maintenance/schedules", "maintenance_schedules"
        body = {"property_id": "BER1", "room_number": "210", "task": "Racing task", "interval_unit": "MONTH",
                "interval_count": 1, "starts_on": berlin_today(api)}
    request_ids = [str(uuid.uuid4()) for _ in range(4)]
    results = run_concurrently(16, lambda i: api.post(path, dict(body, request_id=request_ids[i % 4])))
    assert all(r.status == 201 for r in results), results
    for k, request_id in enumerate(request_ids):
        assert len({r.json["id"] for i, r in enumerate(results) if i % 4 == k}) == 1
        assert api.psql(f"SELECT count(*) FROM {table} WHERE request_id = '{request_id}'") == "1"
    assert len({r.json["id"] for r in results}) == 4

    other = "name" if kind == "equipment" else "task"
    reused = api.post(path, dict(body, request_id=request_ids[0], **{other: "Another request"}))
    assert reused.status == 400 and reused.reason() == "REQUEST_ID_REUSED", reused
    if kind == "equipment":
        missing = api.post("/rooms/999/equipment", dict(body, request_id=str(uuid.uuid4())))
    else:
        missing = api.post(path, dict(body, request_id=str(uuid.uuid4()), room_number="999"))
    assert missing.status == 404 and missing.reason() == "ROOM_NOT_FOUND", missing
    if kind == "schedule":
        fan = api.get("/rooms/110/equipment?property_id=BER1").json["data"][0]
        wrong_room = api.post(path, dict(body, request_id=str(uuid.uuid4()), equipment_id=fan["id"]))
        assert wrong_room.status == 404 and wrong_room.reason() == "EQUIPMENT_NOT_FOUND", wrong_room


def test_create_and_list_schedules_with_the_overdue_filter(api):
    schedule = new_schedule(api, starts_on=berlin_today(api, -3), basis="COMPLETED_DATE")
    assert schedule["next_due_on"] == schedule["starts_on"] and schedule["active"] is True
    assert schedule["overdue"] is True and schedule["basis"] == "COMPLETED_DATE"
    assert schedule["last_completed_at"] is None and schedule["ends_on"] == ""

    overdue = api.get("/maintenance/schedules?overdue=true&page_size=500")
    assert overdue.status == 200 and len(overdue.json["data"]) >= 2, overdue  # seeded ones and this one
    assert all(s["overdue"] and s["active"] for s in overdue.json["data"])
    assert schedule["id"] in ids(overdue)
    assert {s["property_id"] for s in overdue.json["data"]} == {"BER1", "LIS1"}
    not_overdue = api.get("/maintenance/schedules?overdue=false&property_id=BER1&room_number=201")
    assert not_overdue.status == 200 and schedule["id"] not in ids(not_overdue)
    assert all(not s["overdue"] for s in not_overdue.json["data"])
    lisbon = api.get("/maintenance/schedules?property_id=LIS1&active=true&page_size=10")
    assert len(lisbon.json["data"]) == 10 and lisbon.json["next_page_token"]
    assert all(s["property_id"] == "LIS1" for s in lisbon.json["data"])


@pytest.mark.parametrize("query, field", [
    ("overdue=maybe", "overdue"),
    ("overdue=2", "overdue"),
    ("active=perhaps", "active"),
    ("room_number=101", "property_id"),
    ("property_id=BER1&equipment_id=nope", "equipment_id"),
    ("page_token=abc", "page_token"),
])
def test_schedule_list_bad_filters(api, query, field):
    resp = api.get("/maintenance/schedules?" + query)
    assert resp.status == 400, resp
    assert field in resp.violations(), resp


@pytest.mark.parametrize("change, status, field", [
    ({"task": ""}, 400, "task"),
    ({"interval_unit": "FORTNIGHT"}, 400, "interval_unit"),
    ({"interval_count": 0}, 400, "interval_count"),
    ({"starts_on": "2025-02-30"}, 400, "starts_on"),
    ({"ends_on": "2000-01-01"}, 400, "ends_on"),
    ({"room_number": "999"}, 404, None),
    ({"equipment_id": "00000000-0000-4000-8000-000000000000"}, 404, None),
    ({"every": "day"}, 400, "every"),
])
def test_create_schedule_bad_input(api, change, status, field):
    body = {"property_id": "BER1", "room_number": "201", "task": "Descale kettle", "interval_unit": "MONTH",
            "interval_count": 1, "starts_on": "2025-01-31"}
    body.update(change)
    resp = api.post("/maintenance/schedules", body)
    assert resp.status == status, resp
    if field:
        assert names_field(resp, field), resp


def test_complete_a_schedule(api):
    today = berlin_today(api)
    schedule = new_schedule(api, room_number="202", starts_on=today, request_id=str(uuid.uuid4()))
    done = api.post(f"/maintenance/schedules/{schedule['id']}",
                    {"action": "COMPLETE", "completed_by": "Jonas", "notes": "Done", "expected_due_on": today})
    assert done.status == 200, done
    completion, after = done.json["completion"], done.json["schedule"]
    assert completion["due_on"] == today and completion["completed_on"] == today and completion["late"] is False
    assert completion["completed_by"] == "Jonas" and completion["notes"] == "Done"
    assert after["next_due_on"] > today and after["last_completed_at"] and after["overdue"] is False
    assert completion["next_due_on"] == after["next_due_on"]

    # The same occurrence again: 409, one completion.
    again = api.post(f"/maintenance/schedules/{schedule['id']}",
                     {"action": "COMPLETE", "completed_by": "Anna", "expected_due_on": today})
    assert again.status == 409 and again.reason() == "ALREADY_COMPLETED", again
    double = api.post(f"/maintenance/schedules/{schedule['id']}", {"action": "COMPLETE", "completed_by": "Anna"})
    assert double.status == 409 and double.reason() == "ALREADY_COMPLETED", double
    assert api.psql(f"SELECT count(*) FROM schedule_completions WHERE schedule_id = '{schedule['id']}'") == "1"


def test_month_end_clamping_and_late_completion(api):
    schedule = new_schedule(api, room_number="203", starts_on="2024-01-31", interval_unit="MONTH")
    done = api.post(f"/maintenance/schedules/{schedule['id']}",
                    {"action": "COMPLETE", "completed_by": "Jonas", "completed_at": "2024-02-02T10:00:00Z"})
    assert done.status == 200, done
    assert done.json["completion"]["late"] is True and done.json["completion"]["days_late"] == 2
    assert done.json["schedule"]["next_due_on"] == "2024-02-29"
    # 23:30 UTC on Feb 29 is already Mar 1 in Berlin.
    late = api.post(f"/maintenance/schedules/{schedule['id']}",
                    {"action": "COMPLETE", "completed_by": "Jonas", "completed_at": "2024-02-29T23:30:00Z"})
    assert late.json["completion"]["completed_on"] == "2024-03-01" and late.json["completion"]["days_late"] == 1
    assert late.json["schedule"]["next_due_on"] == "2024-03-31"


def test_concurrent_completions_make_one_record(api):
    schedule = new_schedule(api, room_number="204", starts_on=berlin_today(api, -1), interval_unit="WEEK")
    results = run_concurrently(6, lambda i: api.post(f"/maintenance/schedules/{schedule['id']}",
                                                     {"action": "COMPLETE", "completed_by": f"tech {i}"}))
    assert sorted(r.status for r in results) == [200, 409, 409, 409, 409, 409], results
    assert api.psql(f"SELECT count(*) FROM schedule_completions WHERE schedule_id = '{schedule['id']}'") == "1"


def test_retried_completion_returns_the_first_one(api):
    schedule = new_schedule(api, room_number="205", starts_on=berlin_today(api, -1), interval_unit="DAY")
    body = {"action": "COMPLETE", "completed_by": "Jonas", "request_id": str(uuid.uuid4())}
    results = run_concurrently(4, lambda i: api.post(f"/maintenance/schedules/{schedule['id']}", body))
    assert all(r.status == 200 for r in results), results
    assert len({r.json["completion"]["id"] for r in results}) == 1
    assert api.psql(f"SELECT count(*) FROM schedule_completions WHERE schedule_id = '{schedule['id']}'") == "1"


@pytest.mark.parametrize("body, status, reason, field", [
    ({"completed_by": "x"}, 400, None, "action"),
    ({"action": "PAUSE", "completed_by": "x"}, 400, None, "action"),
    ({"action": "COMPLETE"}, 400, None, "completed_by"),
    ({"action": "COMPLETE", "completed_by": "x", "expected_due_on": "tomorrow"}, 400, None, "expected_due_on"),
    ({"action": "COMPLETE", "completed_by": "x", "completed_at": "yesterday"}, 400, None, None),
    ({"action": "COMPLETE", "completed_by": "x", "completed_at": "2099-01-01T00:00:00Z"}, 400, None, "completed_at"),
    ({"action": "COMPLETE", "completed_by": "x", "expected_due_on": "2001-01-01"}, 409, "DUE_DATE_MISMATCH", None),
    ({"action": "COMPLETE", "completed_by": "x", "by": "y"}, 400, "UNKNOWN_FIELD", "by"),
])
def test_schedule_action_bad_input(api, body, status, reason, field):
    schedule = new_schedule(api, room_number="206")
    resp = api.post(f"/maintenance/schedules/{schedule['id']}", body)
    assert resp.status == status, resp
    if reason:
        assert resp.reason() == reason, resp
    if field:
        assert names_field(resp, field), resp


def test_unknown_schedule(api):
    resp = api.post("/maintenance/schedules/00000000-0000-4000-8000-000000000000",
                    {"action": "COMPLETE", "completed_by": "x"})
    assert resp.status == 404 and resp.reason() == "SCHEDULE_NOT_FOUND"


# ---- Room overview, statistics, summary -------------------------------------------------------

def test_room_maintenance_overview(api):
    resp = api.get("/rooms/408/maintenance?property_id=BER1")
    assert resp.status == 200, resp
    overview = resp.json
    assert overview["room"]["number"] == "408" and overview["room"]["available"] is False
    assert overview["room"]["equipment_count"] == len(overview["equipment"]) >= 2
    assert overview["schedules"] and all(s["active"] for s in overview["schedules"])
    assert overview["overdue_schedule_count"] == sum(s["overdue"] for s in overview["schedules"])
    assert [i["status"] for i in overview["open_issues"]] == ["ON_HOLD"]
    assert overview["open_issues"][0]["timeline"] == []
    assert isinstance(overview["recent_completions"], list) and isinstance(overview["recent_issues"], list)

    history = api.get("/rooms/410/maintenance?property_id=BER1").json
    assert history["recent_issues"][0]["status"] == "CLOSED"
    assert history["recent_completions"] and history["recent_completions"][0]["task"] == "Test smoke detector"

    assert api.get("/rooms/408/maintenance").reason() == "PROPERTY_ID_REQUIRED"
    assert api.get("/rooms/999/maintenance?property_id=BER1").reason() == "ROOM_NOT_FOUND"


def test_issue_stats(api):
    resp = api.get("/issues/stats")
    assert resp.status == 200, resp  # not read as GET /issues/{id} with id "stats"
    stats = resp.json
    assert stats["total"] >= 17
    assert set(stats["by_status"]) == {"OPEN", "IN_PROGRESS", "ON_HOLD", "RESOLVED", "CLOSED", "CANCELLED"}
    assert sum(stats["by_status"].values()) == stats["total"]
    assert sum(stats["by_priority"].values()) == stats["total"]
    assert sum(stats["by_category"].values()) == stats["total"]
    assert sum(stats["by_property"].values()) == stats["total"]
    assert stats["open_count"] == sum(stats["by_status"][s] for s in ("OPEN", "IN_PROGRESS", "ON_HOLD"))
    assert sum(stats["open_by_priority"].values()) == stats["open_count"]
    assert 0 < stats["overdue_count"] <= stats["open_count"]
    assert stats["median_time_to_resolve_seconds"] > 0 and stats["mean_time_to_first_response_seconds"] > 0
    assert stats["max_open_age_seconds"] >= stats["mean_open_age_seconds"] > 0

    lisbon = api.get("/issues/stats?property_id=LIS1").json
    assert set(lisbon["by_property"]) == {"LIS1"}
    window = api.get("/issues/stats?from=2000-01-01T00:00:00Z&to=2000-02-01T00:00:00Z").json
    assert window["total"] == 0 and window["mean_time_to_resolve_seconds"] == 0


@pytest.mark.parametrize("query, status, field", [
    ("from=yesterday", 400, "from"),
    ("from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", 400, "from"),
    ("property_id=lisbon", 400, "property_id"),
    ("property_id=NOPE1", 404, None),
])
def test_issue_stats_bad_input(api, query, status, field):
    resp = api.get("/issues/stats?" + query)
    assert resp.status == status, resp
    if field:
        assert names_field(resp, field), resp


def test_summary(api):
    """The dashboard's figures equal a recount in the database (other tests add properties and rooms
    to the shared stack, so the figures are not the seed's)."""
    def count(sql):
        return int(api.psql(sql))

    resp = api.get("/summary")
    assert resp.status == 200, resp
    s = resp.json
    assert s["properties"] == count("SELECT count(*) FROM properties") >= 2
    assert s["enabled_properties"] == count("SELECT count(*) FROM properties WHERE enabled")
    assert s["room_types"] == count("SELECT count(*) FROM room_types WHERE retired_at IS NULL")
    rooms = s["rooms"]
    total = count("SELECT count(*) FROM rooms WHERE retired_at IS NULL")
    assert rooms["total"] == total and rooms["available"] + rooms["out_of_order"] == total
    assert sum(rooms["by_category"].values()) == total and sum(rooms["by_floor"].values()) == total
    assert sum(rooms["by_condition"].values()) == total and set(rooms["by_condition"]) == {"DIRTY", "CLEAN", "INSPECTED"}
    assert rooms["by_floor"]["0"] == count("SELECT count(*) FROM rooms WHERE retired_at IS NULL AND floor = 0")
    assert sum(s["equipment"]["by_status"].values()) == s["equipment"]["total"]
    assert s["equipment"]["by_status"]["DOWN"] >= 2
    assert s["schedules"]["active"] >= s["schedules"]["overdue"] >= 1
    assert sum(s["issues"]["open_by_priority"].values()) == s["issues"]["open"]
    assert s["computed_at"].endswith("Z")
    berlin = api.get("/summary?property_id=BER1").json
    assert berlin["properties"] == 1
    assert berlin["rooms"]["total"] == count("SELECT count(*) FROM rooms WHERE retired_at IS NULL AND property_id = 'BER1'")
    assert api.get("/summary?property_id=ber1").status == 400


def test_openapi_lists_the_maintenance_paths(api):
    paths = api.get("/openapi.json").json["paths"]
    for path in ("/api/v1/issues", "/api/v1/issues/{id}", "/api/v1/issues/stats", "/api/v1/summary",
                 "/api/v1/maintenance/schedules", "/api/v1/maintenance/schedules/{id}",
                 "/api/v1/rooms/{number}/equipment", "/api/v1/rooms/{number}/maintenance"):
        assert path in paths, path


# ---- gRPC -------------------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists(os.path.join(BIN, "grpcurl")), reason="grpcurl not built")
def test_grpc_update_with_if_match_metadata_and_field_mask(api):
    issue = new_issue(api, room_number="105", title="gRPC issue")
    call = lambda body, *headers: api.tool(
        "grpcurl", "-plaintext", "-format-error", *sum((["-H", h] for h in headers), []), "-d", json.dumps(body),
        api.grpc_addr, "hotel.v1.IssueService/UpdateIssue")
    stale = call({"id": issue["id"], "issue": {"title": "x"}, "update_mask": {"paths": ["title"]}}, "if-match: 0123456789abcdef")
    assert stale.returncode != 0
    error = json.loads(stale.stdout or stale.stderr)
    assert error["code"] == 10 and "ETAG_MISMATCH" in [d.get("reason") for d in error["details"]]
    ok = call({"id": issue["id"], "issue": {"title": "Renamed over gRPC", "description": "not in the mask"},
               "update_mask": {"paths": ["title"]}}, f"if-match: {issue['etag']}")
    assert ok.returncode == 0, ok.stderr
    updated = json.loads(ok.stdout)
    assert updated["title"] == "Renamed over gRPC" and updated.get("description", "") == ""


def test_length_limits_count_characters_not_bytes(api):
    """"At most 200 characters": 200 × "é" (400 bytes) is accepted, 201 are refused naming the field."""
    body = {"property_id": "BER1", "room_number": "104", "category": "OTHER", "priority": "LOW",
            "reported_by": "ü" * 100}
    accepted = api.post("/issues", {**body, "title": "é" * 200})
    assert accepted.status == 201 and accepted.json["title"] == "é" * 200, accepted
    refused = api.post("/issues", {**body, "title": "é" * 201})
    assert refused.status == 400 and refused.violations() == ["title"], refused
    patched = api.patch(f"/issues/{accepted.json['id']}", {"title": "🛏" * 200})
    assert patched.status == 200 and patched.json["title"] == "🛏" * 200, patched
