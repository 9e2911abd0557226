"""Room data management (1.1.0) end to end: properties, room types and rooms created and changed
through the gateway and over gRPC, retirement rules, idempotent creates, etags under concurrency,
GetRoom freshness from a second server process, and hotel-admin import/export.

The module runs on a stack of its own: it adds properties, which the shared stack's tests count."""
import concurrent.futures
import json
import os
import random
import subprocess
import threading
import time
import uuid

import pytest

from changefeed import changes_until
from conftest import fresh_id, local_stack
from stack import BIN, ROOT, Stack, wait_for

EXAMPLE = os.path.join(ROOT, "docs", "examples", "property.yaml")


@pytest.fixture(scope="module")
def rdm():
    stack = local_stack("hotel_rdm")
    yield stack
    stack.stop()


def grpc(stack, method, body, *headers):
    """(ok, json) of a RoomService call over gRPC with grpcurl."""
    out = stack.tool("grpcurl", "-plaintext", "-format-error", *sum((["-H", h] for h in headers), []),
                     "-d", json.dumps(body), stack.grpc_addr, f"hotel.v1.RoomService/{method}")
    return out.returncode == 0, json.loads(out.stdout or out.stderr or "{}")


def grpc_reason(error):
    return next((d.get("reason") for d in error.get("details", []) if "reason" in d), None)


def admin(stack, *args):
    env = dict(os.environ, DATABASE_URL=stack.db_url)
    env.pop("MIGRATION_DATABASE_URL", None)
    return subprocess.run([os.path.join(BIN, "hotel-admin"), *args], capture_output=True, text=True, env=env,
                          timeout=120)


PROPERTY = {"id": "AMS1", "name": "Canal House", "time_zone": "Europe/Amsterdam", "city": "Amsterdam",
            "country_code": "NL"}
ROOM_TYPE = {"property_id": "AMS1", "code": "DBL", "name": "Canal Double", "category": "SUPERIOR",
             "amenities": ["wifi", "desk"], "size_sqm": 19.5, "max_guests": 2, "bed_type": "QUEEN"}


def mine(value, property_id):
    """value (a request body, a path) with the example property AMS1 replaced by the test's own."""
    return json.loads(json.dumps(value).replace("AMS1", property_id))


@pytest.fixture
def ams(rdm):
    """The id of a property of the test's own (AMS1 with a fresh code) with room type <id>-DBL and rooms
    101..104 on floor 1, made through the API."""
    property_id = fresh_id("A")
    assert rdm.post("/properties", {**PROPERTY, "id": property_id}).status == 201
    assert rdm.post("/room-types", {**ROOM_TYPE, "property_id": property_id}).status == 201
    for number in ("101", "102", "103", "104"):
        created = rdm.post("/rooms", {"property_id": property_id, "number": number, "floor": 1,
                                      "room_type_id": f"{property_id}-DBL"})
        assert created.status == 201, created
    return property_id


def example_file(tmp_path, property_id):
    """docs/examples/property.yaml for a property of the test's own (its MUC1 renamed property_id)."""
    path = tmp_path / f"{property_id}.yaml"
    path.write_text(open(EXAMPLE).read().replace("MUC1", property_id))
    return str(path)


# ---- creates ------------------------------------------------------------------------------------

def test_create_property_room_type_and_room_answer_201_and_read_back(rdm, ams):
    prop = rdm.get(f"/properties/{ams}").json
    assert prop["room_count"] == 4 and prop["room_type_count"] == 1 and prop["enabled"] is True
    assert prop["etag"] and prop["updated_by"] == "api"
    room_type = rdm.get(f"/room-types/{ams}-DBL").json
    assert room_type["amenities"] == ["desk", "wifi"] and room_type["size_sqm"] == 19.5 and not room_type["retired"]
    room = rdm.get(f"/rooms/101?property_id={ams}").json
    assert room["category"] == "SUPERIOR" and room["amenities"] == ["desk", "wifi"] and room["extra_amenities"] == []
    listed = rdm.get(f"/properties/{ams}/rooms").json["data"]
    assert [r["number"] for r in listed] == ["101", "102", "103", "104"]
    assert ams in [p["id"] for p in rdm.get("/properties").json["data"]]


def test_amenities_vocabulary(rdm):
    data = rdm.get("/amenities").json["data"]
    assert {"code": "sea_view", "label": "Sea view"} in data and len(data) == 16
    assert [a["code"] for a in data] == sorted(a["code"] for a in data)


@pytest.mark.parametrize("path,body,fields", [
    ("/properties", {**PROPERTY, "id": "ams-1"}, ["id"]),
    ("/properties", {**PROPERTY, "id": "XX1", "time_zone": "Mars/Olympus", "country_code": "nl", "name": " "},
     ["name", "time_zone", "country_code"]),
    ("/room-types", {**ROOM_TYPE, "code": "dbl-x"}, ["code"]),
    ("/room-types", {**ROOM_TYPE, "code": "NEW", "amenities": ["wifi", "jacuzzi"]}, ["amenities"]),
    ("/room-types", {**ROOM_TYPE, "code": "NEW", "size_sqm": -3, "max_guests": 0}, ["size_sqm", "max_guests"]),
    ("/room-types", {**ROOM_TYPE, "code": "NEW", "category": "CATEGORY_UNSPECIFIED"}, ["category"]),
    ("/rooms", {"property_id": "AMS1", "number": "9 9", "floor": 1, "room_type_id": "AMS1-DBL"}, ["number"]),
    ("/rooms", {"property_id": "AMS1", "number": "901", "floor": -1, "room_type_id": "AMS1-DBL"}, ["floor"]),
    ("/rooms", {"property_id": "AMS1", "number": "901", "floor": 1, "room_type_id": "BER1-STD"}, ["room_type_id"]),
    ("/rooms", {"property_id": "AMS1", "number": "901", "floor": 1, "room_type_id": "AMS1-DBL",
                "extra_amenities": ["hot_tub"]}, ["extra_amenities"]),
])
def test_bad_input_is_400_naming_every_field(rdm, ams, path, body, fields):
    response = rdm.post(path, mine(body, ams))
    assert response.status == 400 and response.reason() == "INVALID_ARGUMENT", response
    assert sorted(set(response.violations())) == sorted(fields), response


def test_unknown_field_is_400(rdm, ams):
    response = rdm.post("/properties", {**PROPERTY, "id": "XX2", "colour": "red"})
    assert response.status == 400 and response.reason() == "UNKNOWN_FIELD", response
    response = rdm.patch(f"/rooms/101?property_id={ams}", {"colour": "red"})
    assert response.status == 400 and response.reason() == "UNKNOWN_FIELD", response


def test_unknown_property_or_room_type_is_404(rdm, ams):
    response = rdm.post("/room-types", {**ROOM_TYPE, "property_id": "NOPE1"})
    assert response.status == 404 and response.reason() == "PROPERTY_NOT_FOUND", response
    response = rdm.post("/rooms", {"property_id": ams, "number": "901", "floor": 1, "room_type_id": f"{ams}-NONE"})
    assert response.status == 404 and response.reason() == "ROOM_TYPE_NOT_FOUND", response
    assert rdm.patch(f"/rooms/999?property_id={ams}", {"floor": 2}).reason() == "ROOM_NOT_FOUND"
    assert rdm.patch(f"/room-types/{ams}-NONE", {"name": "x"}).reason() == "ROOM_TYPE_NOT_FOUND"
    assert rdm.patch("/properties/NOPE1", {"name": "x"}).reason() == "PROPERTY_NOT_FOUND"


def test_duplicate_ids_are_409_already_exists(rdm, ams):
    for path, body, reason in [("/properties", {**PROPERTY, "id": ams}, "PROPERTY_EXISTS"),
                               ("/properties", {**PROPERTY, "id": "BER1"}, "PROPERTY_EXISTS"),
                               ("/room-types", {**ROOM_TYPE, "property_id": ams}, "ROOM_TYPE_EXISTS"),
                               ("/rooms", {"property_id": ams, "number": "101", "floor": 3,
                                           "room_type_id": f"{ams}-DBL"}, "ROOM_EXISTS")]:
        response = rdm.post(path, body)
        assert response.status == 409 and response.reason() == reason, response


def test_request_id_retry_returns_the_first_result_and_reuse_is_refused(rdm, ams):
    body = {"property_id": ams, "number": "201", "floor": 2, "room_type_id": f"{ams}-DBL",
            "request_id": f"rdm-201-{ams}"}
    first = rdm.post("/rooms", body)
    again = rdm.post("/rooms", body)
    assert first.status == again.status == 201 and first.json == again.json
    other = rdm.post("/rooms", {**body, "number": "202"})
    assert other.status == 400 and other.reason() == "REQUEST_ID_REUSED", other
    # Concurrent retries: one room, the same answer for all.
    body = {**body, "number": "203", "request_id": f"rdm-203-{ams}"}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: rdm.post("/rooms", body), range(8)))
    assert {a.status for a in answers} == {201} and len({a.text for a in answers}) == 1
    count = rdm.psql(f"SELECT count(*) FROM rooms WHERE property_id = '{ams}' AND number = '203'")
    assert count == "1"


# ---- updates ------------------------------------------------------------------------------------

def test_patch_changes_only_the_body_fields_and_records_the_actor(rdm, ams):
    before = rdm.get(f"/rooms/102?property_id={ams}").json
    patched = rdm.patch(f"/rooms/102?property_id={ams}", {"floor": 0, "extra_amenities": ["balcony", "balcony"],
                                                        "updated_by": "ops@example.com"})
    assert patched.status == 200, patched
    room = patched.json
    assert room["floor"] == 0 and room["extra_amenities"] == ["balcony"] and room["room_type_id"] == f"{ams}-DBL"
    assert room["amenities"] == ["balcony", "desk", "wifi"] and room["updated_by"] == "ops@example.com"
    assert room["etag"] != before["etag"]
    # The same values again: nothing to write, the etag stays.
    same = rdm.patch(f"/rooms/102?property_id={ams}", {"floor": 0})
    assert same.status == 200 and same.json["etag"] == room["etag"]


def test_patch_property_disable_keeps_its_data(rdm, ams):
    current = rdm.get(f"/properties/{ams}").json
    disabled = rdm.patch(f"/properties/{ams}", {"enabled": False, "name": "Canal House (closed)"},
                         headers={"If-Match": f'"{current["etag"]}"', "Content-Type": "application/json"})
    assert disabled.status == 200 and disabled.json["enabled"] is False, disabled
    assert rdm.get(f"/properties/{ams}/rooms").json["data"], "a disabled property keeps its rooms"
    assert ams not in [p["id"] for p in rdm.get("/properties?enabled=true").json["data"]]
    enabled = rdm.patch(f"/properties/{ams}", {"enabled": True, "name": PROPERTY["name"]})
    assert enabled.status == 200 and enabled.json["enabled"] is True
    assert rdm.patch(f"/properties/{ams}", {"id": "AMS2"}).violations() == ["id"]
    for zone in ("Nowhere/City", "/usr/share/zoneinfo/UTC", "localtime", "../zoneinfo/UTC"):
        assert rdm.patch(f"/properties/{ams}", {"time_zone": zone}).violations() == ["time_zone"], zone
    assert rdm.patch(f"/properties/{ams}", {"time_zone": "Etc/GMT+5"}).status == 200
    assert rdm.patch(f"/properties/{ams}", {"time_zone": PROPERTY["time_zone"]}).status == 200


def test_stale_etag_is_refused_never_merged(rdm, ams):
    room = rdm.get(f"/rooms/103?property_id={ams}").json
    assert rdm.patch(f"/rooms/103?property_id={ams}", {"floor": 4, "etag": room["etag"]}).status == 200
    stale = rdm.patch(f"/rooms/103?property_id={ams}", {"floor": 5, "etag": room["etag"]})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    stale = rdm.patch(f"/rooms/103?property_id={ams}", {"floor": 5},
                      headers={"If-Match": f'"{room["etag"]}"', "Content-Type": "application/json"})
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    assert rdm.get(f"/rooms/103?property_id={ams}").json["floor"] == 4
    room_type = rdm.get(f"/room-types/{ams}-DBL").json
    assert rdm.patch(f"/room-types/{ams}-DBL", {"name": "x", "etag": "0000000000000000"}).reason() == "ETAG_MISMATCH"
    assert rdm.get(f"/room-types/{ams}-DBL").json["etag"] == room_type["etag"]


def test_concurrent_patches_with_one_etag_one_wins(rdm, ams):
    etag = rdm.get(f"/rooms/104?property_id={ams}").json["etag"]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda floor: rdm.patch(f"/rooms/104?property_id={ams}",
                                                        {"floor": floor, "etag": etag}), range(2, 10)))
    statuses = sorted(a.status for a in answers)
    assert statuses.count(200) == 1 and statuses.count(409) == 7, statuses
    winner = next(a for a in answers if a.status == 200).json
    assert rdm.get(f"/rooms/104?property_id={ams}").json["floor"] == winner["floor"]


def test_bad_update_values_name_every_field(rdm, ams):
    response = rdm.patch(f"/room-types/{ams}-DBL", {"size_sqm": -1, "max_guests": 99, "amenities": ["spa"]})
    assert response.status == 400 and sorted(response.violations()) == ["amenities", "max_guests", "size_sqm"]
    response = rdm.patch(f"/rooms/101?property_id={ams}", {"floor": -2, "room_type_id": "bad"})
    assert sorted(response.violations()) == ["floor", "room_type_id"], response
    assert rdm.patch(f"/rooms/101?property_id={ams}", {"number": "999"}).violations() == ["number"]
    assert rdm.patch("/rooms/101", {"floor": 1}).reason() == "PROPERTY_ID_REQUIRED"


# ---- retirement ---------------------------------------------------------------------------------

def test_retired_room_leaves_lists_and_counts_but_stays_readable(rdm, ams):
    created = rdm.post("/rooms", {"property_id": ams, "number": "301", "floor": 3, "room_type_id": f"{ams}-DBL"})
    assert created.status == 201
    summary = rdm.get(f"/summary?property_id={ams}").json
    retired = rdm.patch(f"/rooms/301?property_id={ams}", {"retired": True, "updated_by": "ops"})
    assert retired.status == 200 and retired.json["retired"] is True and retired.json["retire_time"], retired
    numbers = [r["number"] for r in rdm.get(f"/properties/{ams}/rooms").json["data"]]
    assert "301" not in numbers
    shown = [r["number"] for r in rdm.get(f"/properties/{ams}/rooms?show_retired=true").json["data"]]
    assert "301" in shown
    assert rdm.get(f"/rooms/301?property_id={ams}").json["retired"] is True
    after = rdm.get(f"/summary?property_id={ams}").json
    assert json.dumps(after).count("301") == 0
    assert rdm.get(f"/properties/{ams}").json["room_count"] == len(numbers)
    assert after != summary
    back = rdm.patch(f"/rooms/301?property_id={ams}", {"retired": False})
    assert back.status == 200 and back.json["retired"] is False and back.json["retire_time"] is None


def test_retiring_a_room_held_by_an_open_issue_is_refused_naming_it(rdm, ams):
    issue = rdm.post("/issues", {"property_id": ams, "room_number": "101", "title": "Leak", "category": "PLUMBING",
                                 "priority": "HIGH", "reported_by": "desk", "take_room_out_of_order": True}).json
    refused = rdm.patch(f"/rooms/101?property_id={ams}", {"retired": True})
    assert refused.status == 400 and refused.reason() == "ROOM_HELD_BY_ISSUE", refused
    assert issue["id"] in refused.json["message"]
    rdm.patch(f"/issues/{issue['id']}", {"status": "CANCELLED", "reason": "duplicate"})
    assert rdm.patch(f"/rooms/101?property_id={ams}", {"retired": True}).status == 200
    # A retired room is never taken out of order (the issue and the retirement lock the room).
    held = rdm.post("/issues", {"property_id": ams, "room_number": "101", "title": "Dust", "category": "OTHER",
                                "priority": "LOW", "reported_by": "desk", "take_room_out_of_order": True})
    assert held.status == 400 and held.reason() == "ROOM_RETIRED", held
    noted = rdm.post("/issues", {"property_id": ams, "room_number": "101", "title": "Dust", "category": "OTHER",
                                 "priority": "LOW", "reported_by": "desk"})
    assert noted.status == 201, "issues that do not take the room are still recorded"
    took = rdm.patch(f"/issues/{noted.json['id']}", {"take_room_out_of_order": True})
    assert took.status == 400 and took.reason() == "ROOM_RETIRED", took
    # History stays: the issue still names the retired room.
    assert rdm.get(f"/issues/{issue['id']}").json["room_number"] == "101"
    assert rdm.patch(f"/rooms/101?property_id={ams}", {"retired": False}).status == 200


def test_room_type_retirement_rules(rdm, ams):
    assert rdm.post("/room-types", {**ROOM_TYPE, "property_id": ams, "code": "OLD", "name": "Old wing"}).status == 201
    assert rdm.post("/rooms", {"property_id": ams, "number": "401", "floor": 4,
                               "room_type_id": f"{ams}-OLD"}).status == 201
    in_use = rdm.patch(f"/room-types/{ams}-OLD", {"retired": True})
    assert in_use.status == 400 and in_use.reason() == "ROOM_TYPE_IN_USE" and "401" in in_use.json["message"]
    assert rdm.patch(f"/rooms/401?property_id={ams}", {"room_type_id": f"{ams}-DBL"}).status == 200
    retired = rdm.patch(f"/room-types/{ams}-OLD", {"retired": True})
    assert retired.status == 200 and retired.json["retired"] is True
    assert f"{ams}-OLD" not in [t["id"] for t in rdm.get(f"/properties/{ams}/room-types").json["data"]]
    assert f"{ams}-OLD" in [t["id"] for t in rdm.get(f"/room-types?property_id={ams}&show_retired=true").json["data"]]
    assert rdm.get(f"/room-types/{ams}-OLD").status == 200
    no_rooms = rdm.post("/rooms", {"property_id": ams, "number": "402", "floor": 4, "room_type_id": f"{ams}-OLD"})
    assert no_rooms.status == 400 and no_rooms.reason() == "ROOM_TYPE_RETIRED", no_rooms
    moved = rdm.patch(f"/rooms/401?property_id={ams}", {"room_type_id": f"{ams}-OLD"})
    assert moved.reason() == "ROOM_TYPE_RETIRED", moved


# ---- freshness ----------------------------------------------------------------------------------

def test_get_room_follows_patches_at_once_in_this_and_another_server(rdm, ams):
    assert rdm.patch(f"/rooms/101?property_id={ams}", {"floor": 2}).status == 200
    second = Stack(rdm.cluster, rdm.database)
    second.start_server()
    second.start_gateway()
    second.wait_ready()
    try:
        path = f"/rooms/101?property_id={ams}"
        for stack in (rdm, second):  # warm both caches
            assert stack.get(path).json["floor"] == 2 and stack.get(path).json["floor"] == 2
        assert rdm.patch(path, {"floor": 7}).status == 200
        assert rdm.get(path).json["floor"] == 7, "the same process answers the new data on the next call"
        # The other process hears the commit through NOTIFY room_data_changed.
        assert wait_for(lambda: second.get(path).json["floor"] == 7, 5)
        assert rdm.patch(f"/room-types/{ams}-DBL", {"amenities": ["wifi", "minibar"]}).status == 200
        assert rdm.get(path).json["amenities"] == ["minibar", "wifi"]
        assert wait_for(lambda: second.get(path).json["amenities"] == ["minibar", "wifi"], 5)
        # A change made through the second server is seen by the first at once.
        assert second.patch(path, {"floor": 2}).status == 200
        assert second.get(path).json["floor"] == 2
        assert wait_for(lambda: rdm.get(path).json["floor"] == 2, 5)
    finally:
        second.stop(keep_database=True)


# ---- gRPC ---------------------------------------------------------------------------------------

def test_grpc_creates_and_updates(rdm):
    grpc_id = fresh_id("G")
    ok, prop = grpc(rdm, "CreateProperty", {"id": grpc_id, "name": "gRPC House", "time_zone": "UTC", "city": "X",
                                            "country_code": "GB", "enabled": False, "request_id": f"g-{grpc_id}"})
    assert ok and prop["id"] == grpc_id and not prop.get("enabled", False), prop
    ok, again = grpc(rdm, "CreateProperty", {"id": grpc_id, "name": "gRPC House", "time_zone": "UTC", "city": "X",
                                             "country_code": "GB", "enabled": False, "request_id": f"g-{grpc_id}"})
    assert ok and again == prop
    ok, error = grpc(rdm, "CreateProperty", {"id": grpc_id, "name": "n", "time_zone": "UTC", "city": "X",
                                             "country_code": "GB"})
    assert not ok and error["code"] == 6 and grpc_reason(error) == "PROPERTY_EXISTS"
    ok, room_type = grpc(rdm, "CreateRoomType", {"property_id": grpc_id, "code": "STD", "name": "Std",
                                                 "category": "STANDARD", "size_sqm": 20, "max_guests": 2,
                                                 "bed_type": "DOUBLE"})
    assert ok and room_type["id"] == f"{grpc_id}-STD", room_type
    ok, room = grpc(rdm, "CreateRoom", {"property_id": grpc_id, "number": "1", "floor": 0,
                                        "room_type_id": f"{grpc_id}-STD"})
    assert ok and room["number"] == "1", room
    ok, error = grpc(rdm, "CreateRoom", {"property_id": grpc_id, "number": "2", "floor": -1,
                                         "room_type_id": f"{grpc_id}-STD", "extra_amenities": ["nope"]})
    assert not ok and error["code"] == 3
    ok, updated = grpc(rdm, "UpdateRoom", {"property_id": grpc_id, "number": "1", "room": {"floor": 0},
                                           "update_mask": {"paths": ["floor", "extra_amenities"]}},
                       f"if-match: {room['etag']}")
    assert ok, updated
    ok, error = grpc(rdm, "UpdateRoom", {"property_id": grpc_id, "number": "1", "room": {"floor": 3},
                                         "update_mask": {"paths": ["floor"]}}, f"if-match: {room['etag']}")
    assert ok, error  # nothing changed in the previous call, so the etag is still current
    ok, error = grpc(rdm, "UpdateRoom", {"property_id": grpc_id, "number": "1", "room": {"floor": 4},
                                         "update_mask": {"paths": ["floor"]}}, f"if-match: {room['etag']}")
    assert not ok and error["code"] == 10 and grpc_reason(error) == "ETAG_MISMATCH"
    ok, error = grpc(rdm, "UpdateRoom", {"property_id": grpc_id, "number": "1", "room": {},
                                         "update_mask": {"paths": ["colour"]}})
    assert not ok and error["code"] == 3
    ok, updated = grpc(rdm, "UpdateRoomType", {"id": f"{grpc_id}-STD", "room_type": {"max_guests": 3}})
    assert ok and updated["max_guests"] == 3, updated
    ok, updated = grpc(rdm, "UpdateProperty", {"id": grpc_id, "property": {"enabled": True}})
    assert ok and updated["enabled"] is True, updated
    ok, amenities = grpc(rdm, "ListAmenities", {})
    assert ok and len(amenities["data"]) == 16


# ---- hotel-admin --------------------------------------------------------------------------------

def test_import_example_dry_run_apply_reimport_and_round_trip(rdm, tmp_path):
    muc = fresh_id("M")
    example = example_file(tmp_path, muc)
    dry = admin(rdm, "import", example, "--dry-run")
    assert dry.returncode == 0 and f"+ room {muc}/501" in dry.stdout, dry.stderr
    assert rdm.get(f"/properties/{muc}").status == 404, "a dry run writes nothing"
    applied = admin(rdm, "import", example)
    assert applied.returncode == 0 and "7 to create" in applied.stdout, applied.stderr
    assert rdm.get(f"/rooms/501?property_id={muc}").json["amenities"][-1] == "wifi"
    assert rdm.get(f"/properties/{muc}").json["enabled"] is False
    versions = rdm.psql(f"SELECT string_agg(version::text, ',' ORDER BY number) FROM rooms WHERE property_id = '{muc}'")
    again = admin(rdm, "import", example)
    assert again.returncode == 0 and "0 to create, 0 to update, 7 unchanged" in again.stdout, again.stdout
    exported = admin(rdm, "export", muc, f"--out={tmp_path / 'exported.yaml'}")
    assert exported.returncode == 0, exported.stderr
    round_trip = admin(rdm, "import", str(tmp_path / "exported.yaml"))
    assert "0 to create, 0 to update, 7 unchanged" in round_trip.stdout, round_trip.stdout
    assert rdm.psql("SELECT string_agg(version::text, ',' ORDER BY number) FROM rooms "
                    f"WHERE property_id = '{muc}'") == versions, "re-imports bump no version"
    # The seeded properties export and re-import as they are.
    for seeded in ("BER1", "LIS1"):
        out = tmp_path / f"{seeded}.yaml"
        assert admin(rdm, "export", seeded, f"--out={out}").returncode == 0
        assert " 0 to update" in admin(rdm, "import", str(out)).stdout


def test_import_with_one_bad_row_changes_nothing_and_names_it(rdm, tmp_path):
    muc = fresh_id("M")
    example = example_file(tmp_path, muc)
    ham = fresh_id("H")
    text = open(example).read().replace(muc, ham).replace('{number: "201", floor: 2', '{number: "201", floor: -2')
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    result = admin(rdm, "import", str(bad))
    assert result.returncode == 2 and "rooms[2] (line" in result.stderr and "number 201" in result.stderr
    assert "floor" in result.stderr, result.stderr
    assert rdm.get(f"/properties/{ham}").status == 404
    # A refusal only the database can tell (a room held out of order) also writes nothing.
    assert admin(rdm, "import", example).returncode == 0
    issue = rdm.post("/issues", {"property_id": muc, "room_number": "102", "title": "Broken window",
                                 "category": "OTHER", "priority": "LOW", "reported_by": "desk",
                                 "take_room_out_of_order": True}).json
    retire = tmp_path / "retire.yaml"
    retire.write_text(open(example).read().replace('{number: "102", floor: 1, room_type: STD',
                                                   '{number: "102", floor: 1, room_type: STD, retired: true')
                      .replace('{number: "101", floor: 1', '{number: "101", floor: 9'))
    refused = admin(rdm, "import", str(retire))
    assert refused.returncode != 0 and issue["id"] in refused.stderr and "rooms[1]" in refused.stderr, refused.stderr
    assert rdm.get(f"/rooms/101?property_id={muc}").json["floor"] == 1, "nothing of the file was written"


def test_import_changes_print_a_diff(rdm, tmp_path):
    muc = fresh_id("M")
    example = example_file(tmp_path, muc)
    assert admin(rdm, "import", example).returncode == 0
    changed = tmp_path / "changed.yaml"
    changed.write_text(open(example).read().replace('{number: "201", floor: 2', '{number: "201", floor: 3'))
    dry = admin(rdm, "import", str(changed), "--dry-run")
    assert f"~ room {muc}/201: floor: 2 -> 3" in dry.stdout, dry.stdout
    assert rdm.get(f"/rooms/201?property_id={muc}").json["floor"] == 2
    assert admin(rdm, "import", str(changed)).returncode == 0
    # hotel-admin is another process: the server's room cache hears of its write by notification,
    # milliseconds later (docs/performance.md, cross-replica staleness), not before the import ends.
    assert wait_for(lambda: rdm.get(f"/rooms/201?property_id={muc}").json["floor"] == 3, 2)
    assert admin(rdm, "import", example).returncode == 0


# ---- concurrency --------------------------------------------------------------------------------

def test_many_writers_on_the_same_rooms(rdm):
    """Eight workers for three seconds on one property: creates (with retries of the same
    request_id), floor and extra changes, moves between two types, retirements and returns, type
    changes and type retirements. No 5xx, every acknowledged create stored once, counts equal to a
    recount, no active room on a retired type, and GetRoom (cached) equal to the database."""
    con = fresh_id("C")
    assert rdm.post("/properties", {**PROPERTY, "id": con}).status == 201
    for code in ("A", "B"):
        assert rdm.post("/room-types", {**ROOM_TYPE, "property_id": con, "code": code}).status == 201
    numbers = [str(100 + i) for i in range(8)]
    for number in numbers:
        assert rdm.post("/rooms", {"property_id": con, "number": number, "floor": 1,
                                   "room_type_id": f"{con}-A"}).status == 201
    statuses, created, lock = [], [], threading.Lock()
    deadline = time.time() + 3

    def worker(seed):
        rng = random.Random(seed)
        n = 0
        while time.time() < deadline:
            n += 1
            number = rng.choice(numbers)
            path = f"/rooms/{number}?property_id={con}"
            choice = rng.randrange(7)
            if choice == 0:
                body = {"property_id": con, "number": f"{seed}{n:03d}", "floor": 2, "room_type_id": f"{con}-B",
                        "request_id": f"{con}-{seed}-{n}"}
                answers = [rdm.post("/rooms", body), rdm.post("/rooms", body)]
                with lock:
                    statuses.extend(a.status for a in answers)
                    if answers[0].status == 201:
                        created.append(body["number"])
                continue
            if choice == 1:
                r = rdm.patch(path, {"floor": rng.randrange(0, 10)})
            elif choice == 2:
                r = rdm.patch(path, {"extra_amenities": rng.sample(["balcony", "terrace", "safe"], rng.randrange(3))})
            elif choice == 3:
                r = rdm.patch(path, {"room_type_id": rng.choice([f"{con}-A", f"{con}-B"])})
            elif choice == 4:
                r = rdm.patch(path, {"retired": rng.random() < 0.5})
            elif choice == 5:
                r = rdm.patch(f"/room-types/{con}-{rng.choice('AB')}", {"retired": rng.random() < 0.3})
            else:
                etag = rdm.get(path).json["etag"]
                r = rdm.patch(path, {"floor": rng.randrange(0, 10), "etag": etag})
            with lock:
                statuses.append(r.status)

    threads = [threading.Thread(target=worker, args=(i + 1,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses and all(s < 500 for s in statuses), sorted(set(statuses))
    assert set(statuses) <= {200, 201, 400, 409}, sorted(set(statuses))
    for number in created:
        assert rdm.psql(f"SELECT count(*) FROM rooms WHERE property_id = '{con}' AND number = '{number}'") == "1"
    active = rdm.psql(f"SELECT count(*) FROM rooms WHERE property_id = '{con}' AND retired_at IS NULL")
    assert str(rdm.get(f"/properties/{con}").json["room_count"]) == active
    assert str(rdm.get(f"/summary?property_id={con}").json["rooms"]["total"]) == active
    assert rdm.psql("SELECT count(*) FROM rooms r JOIN room_types t ON t.id = r.room_type_id WHERE "
                    f"r.property_id = '{con}' AND r.retired_at IS NULL AND t.retired_at IS NOT NULL") == "0"
    for number in numbers:
        stored = rdm.psql(f"SELECT floor || '/' || room_type_id FROM rooms WHERE property_id = '{con}' "
                          f"AND number = '{number}'")
        room = rdm.get(f"/rooms/{number}?property_id={con}").json
        assert f"{room['floor']}/{room['room_type_id']}" == stored


def test_every_room_data_write_is_on_the_change_feed_with_its_actor(rdm):
    cursor = rdm.get("/properties?page_size=1").json["change_cursor"]
    created = rdm.post("/properties", {"id": f"FEED{uuid.uuid4().hex[:4].upper()}", "name": "Feed Hotel", "time_zone": "Europe/Lisbon",
                                       "city": "Lisbon", "country_code": "PT", "updated_by": "Rita"})
    assert created.status == 201, created
    property_id = created.json["id"]
    room_type = rdm.post("/room-types", {"property_id": property_id, "code": "STD", "name": "Standard",
                                         "category": "STANDARD", "size_sqm": 20, "max_guests": 2,
                                         "bed_type": "double", "updated_by": "Rita"})
    assert room_type.status == 201, room_type
    room = rdm.post("/rooms", {"property_id": property_id, "number": "101", "floor": 1,
                               "room_type_id": room_type.json["id"], "updated_by": "Rita"})
    assert room.status == 201, room
    moved = rdm.patch(f"/rooms/101?property_id={property_id}", {"floor": 2, "updated_by": "Tomas"},
                      headers={"If-Match": room.json["etag"]})
    assert moved.status == 200, moved

    def done(cs):
        return any(c["resource_type"] == "ROOM" and c["kind"] == "UPDATED" and c["property_id"] == property_id
                   for c in cs)
    changes = [c for c in changes_until(rdm, cursor, done) if c["property_id"] == property_id]
    kinds = [(c["resource_type"], c["kind"]) for c in changes]
    assert kinds == [("PROPERTY", "CREATED"), ("ROOM_TYPE", "CREATED"), ("ROOM", "CREATED"), ("ROOM", "UPDATED")], kinds
    assert changes[-1]["changed_fields"] == ["floor"] and changes[-1]["actor"] == "Tomas", changes[-1]
    assert changes[0]["actor"] == "Rita"
