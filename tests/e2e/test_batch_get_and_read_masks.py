"""Batch gets (AIP-231) and read masks (AIP-157) through the real gateway and over gRPC with
grpcurl: the order asked, the limits, the 404 naming what is missing, the mask on every operation
that takes one (nested and unknown paths included) and the ETag of a masked resource."""
import json
import uuid

import pytest

from conftest import local_stack, new_property


@pytest.fixture(scope="module")
def stack():
    s = local_stack("hotel_batch")
    yield s
    s.stop()


def descriptions(resp):
    for detail in (resp.json or {}).get("details", []):
        if detail.get("@type", "").endswith("google.rpc.BadRequest"):
            return [v["description"] for v in detail["field_violations"]]
    return []


def new_issue(stack, room, title):
    resp = stack.post("/issues", {"property_id": "BER1", "room_number": room, "title": title, "category": "OTHER",
                                  "priority": "LOW", "reported_by": "batch test"})
    assert resp.status == 201, resp
    return resp.json


def grpc(stack, method, body):
    out = stack.tool("grpcurl", "-plaintext", "-format-error", "-d", json.dumps(body), stack.grpc_addr, method)
    return out.returncode, json.loads(out.stdout or out.stderr)


# ---- batch get of rooms ------------------------------------------------------------------------

def test_rooms_come_in_the_order_asked_as_the_list_shows_them(stack):
    resp = stack.get("/rooms:batchGet?property_id=BER1&numbers=305&numbers=101&numbers=210")
    assert resp.status == 200, resp
    assert [r["number"] for r in resp.json["rooms"]] == ["305", "101", "210"]
    listed = {r["number"]: r for r in stack.get("/rooms?property_id=BER1&page_size=500").json["data"]}
    for room in resp.json["rooms"]:
        assert room == listed[room["number"]]  # the list's representation: no images
        assert room["etag"] == stack.get(f"/rooms/{room['number']}?property_id=BER1").json["etag"]


def test_a_hundred_rooms_in_one_call(stack):
    numbers = [str(1000 + i) for i in range(100)]
    property_id = new_property(stack, prefix="BAT", rooms=numbers)
    asked = list(reversed(numbers))
    resp = stack.get(f"/rooms:batchGet?property_id={property_id}&" + "&".join(f"numbers={n}" for n in asked))
    assert resp.status == 200, resp
    assert [r["number"] for r in resp.json["rooms"]] == asked


@pytest.mark.parametrize("query, field, words", [
    ("property_id=BER1", "numbers", "is required"),
    ("property_id=BER1&" + "&".join(f"numbers={100 + i}" for i in range(101)), "numbers", "at most 100"),
    ("property_id=BER1&numbers=101&numbers=102&numbers=101", "numbers", "101 is asked more than once"),
    ("property_id=BER1&numbers=1%2001", "numbers", "letters, digits or dashes"),
    ("numbers=101", "property_id", "is required"),
    ("property_id=ber1&numbers=101", "property_id", "property code"),
])
def test_room_batch_limits_name_the_field(stack, query, field, words):
    resp = stack.get("/rooms:batchGet?" + query)
    assert resp.status == 400, resp
    assert resp.violations() == [field], resp
    assert any(words in d for d in descriptions(resp)), resp


def test_an_unknown_room_fails_the_call_naming_it(stack):
    resp = stack.get("/rooms:batchGet?property_id=BER1&numbers=101&numbers=999&numbers=102&numbers=998")
    assert resp.status == 404 and resp.reason() == "ROOM_NOT_FOUND", resp
    assert resp.json["message"] == "rooms 999, 998 do not exist in property BER1"
    one = stack.get("/rooms:batchGet?property_id=BER1&numbers=999")
    assert one.json["message"] == "room 999 does not exist in property BER1"
    nowhere = stack.get("/rooms:batchGet?property_id=NOPE1&numbers=101")
    assert nowhere.status == 404 and nowhere.reason() == "PROPERTY_NOT_FOUND", nowhere


def test_the_verb_route_leaves_the_neighbouring_routes_alone(stack):
    assert stack.get("/rooms/101?property_id=BER1").json["number"] == "101"
    assert len(stack.get("/rooms?property_id=LIS1").json["data"]) == 24
    assert stack.get("/issues/stats").status == 200
    # A verb the API does not have is no room number.
    assert stack.get("/rooms:batchDelete?property_id=BER1&numbers=101").status == 404


# ---- batch get of issues -----------------------------------------------------------------------

def test_issues_come_in_the_order_asked(stack):
    made = [new_issue(stack, room, f"Batch {room}") for room in ("101", "102", "103")]
    ids = [made[2]["id"], made[0]["id"].upper(), made[1]["id"]]
    resp = stack.get("/issues:batchGet?" + "&".join(f"ids={i}" for i in ids))
    assert resp.status == 200, resp
    assert [i["title"] for i in resp.json["issues"]] == ["Batch 103", "Batch 101", "Batch 102"]
    listed = {i["id"]: i for i in stack.get("/issues?property_id=BER1&page_size=500").json["data"]}
    assert all(issue == listed[issue["id"]] for issue in resp.json["issues"])  # no timeline, as listed
    assert resp.json["issues"][0]["timeline"] == []


def test_issue_batch_limits_and_404(stack):
    issue = new_issue(stack, "104", "Batch limits")
    unknown = str(uuid.uuid4())
    missing = stack.get(f"/issues:batchGet?ids={issue['id']}&ids={unknown}")
    assert missing.status == 404 and missing.reason() == "ISSUE_NOT_FOUND", missing
    assert missing.json["message"] == f"issue {unknown} does not exist"
    for query, words in [("", "is required"), ("ids=nope", "UUID"),
                         (f"ids={issue['id']}&ids={issue['id'].upper()}", "more than once"),
                         ("&".join(f"ids={uuid.uuid4()}" for _ in range(101)), "at most 100")]:
        resp = stack.get("/issues:batchGet?" + query)
        assert resp.status == 400 and resp.violations() == ["ids"], (query, resp)
        assert any(words in d for d in descriptions(resp)), resp


# ---- read masks --------------------------------------------------------------------------------

@pytest.fixture
def issue_id(stack):
    """An issue of the test's own, in progress (its timeline: CREATED, STATUS_CHANGED)."""
    issue = new_issue(stack, "105", "Masked")
    assert stack.patch(f"/issues/{issue['id']}", {"status": "IN_PROGRESS"}).status == 200
    return issue["id"]


def single_resources(issue_id):
    """Every get that takes a read mask: (path, resource key of the answer or None)."""
    return [
        ("/rooms/101?property_id=BER1", None),
        ("/room-types/BER1-STD", None),
        (f"/issues/{issue_id}", None),
        ("/rooms?property_id=BER1&page_size=3", "data"),
        ("/room-types?property_id=BER1&page_size=3", "data"),
        ("/issues?property_id=BER1&page_size=3", "data"),
        ("/rooms:batchGet?property_id=BER1&numbers=102&numbers=101", "rooms"),
        (f"/issues:batchGet?ids={issue_id}", "issues"),
    ]


OPERATIONS = [
    ("/rooms/101?property_id=BER1", None, "number,available", {"number", "available"}),
    ("/room-types/BER1-STD", None, "id,images.id", {"id", "images"}),
    ("/issues/{issue}", None, "status,timeline.type", {"status", "timeline"}),
    ("/rooms?property_id=BER1&page_size=3", "data", "number,available", {"number", "available"}),
    ("/properties/BER1/rooms?page_size=3", "data", "number,floor", {"number", "floor"}),
    ("/room-types?property_id=BER1&page_size=3", "data", "id,max_guests", {"id", "max_guests"}),
    ("/properties/BER1/room-types?page_size=3", "data", "code", {"code"}),
    ("/issues?property_id=BER1&page_size=3", "data", "id,priority", {"id", "priority"}),
    ("/rooms:batchGet?property_id=BER1&numbers=102&numbers=101", "rooms", "number,out_of_order", {"number", "out_of_order"}),
    ("/issues:batchGet?ids={issue}", "issues", "title,status", {"title", "status"}),
]


@pytest.mark.parametrize("path, key, mask, fields", OPERATIONS)
def test_a_mask_keeps_only_its_fields_with_their_values(stack, issue_id, path, key, mask, fields):
    path = path.format(issue=issue_id)
    full = stack.get(path)
    masked = stack.get(path + ("&" if "?" in path else "?") + "read_mask=" + mask)
    assert full.status == 200 and masked.status == 200, masked
    whole = full.json if key is None else full.json[key]
    part = masked.json if key is None else masked.json[key]
    if key is not None:
        # The page itself keeps its own fields; only its resources are masked.
        assert set(masked.json) == set(full.json) and masked.json.get("next_page_token") == full.json.get("next_page_token")
        assert len(part) == len(whole) > 0
    for got, want in zip(part if key else [part], whole if key else [whole]):
        assert set(got) == fields, got
        for name in fields:
            if isinstance(want[name], list) and want[name] and isinstance(want[name][0], dict):
                inner = mask.split(name + ".")[1].split(",")[0]
                assert got[name] == [{inner: item[inner]} for item in want[name]]
            else:
                assert got[name] == want[name]


def test_nested_paths_reach_into_repeated_messages(stack, issue_id):
    issue = stack.get(f"/issues/{issue_id}?read_mask=timeline.type,timeline.to").json
    assert issue == {"timeline": [{"type": "CREATED", "to": issue["timeline"][0]["to"]},
                                  {"type": "STATUS_CHANGED", "to": "IN_PROGRESS"}]}
    # A whole field and one of its own together: the whole field.
    both = stack.get(f"/issues/{issue_id}?read_mask=timeline,timeline.type").json
    assert set(both["timeline"][0]) > {"type", "actor", "at"}


@pytest.mark.parametrize("mask, bad", [("etag,flor", "flor"), ("images.colour", "images.colour"),
                                       ("number.digits", "number.digits"), ("data.number", "data.number"),
                                       ("", "")])
def test_unknown_paths_are_400_naming_the_path(stack, issue_id, mask, bad):
    for path, _ in single_resources(issue_id):
        resp = stack.get(path + ("&" if "?" in path else "?") + "read_mask=" + mask)
        assert resp.status == 400 and resp.violations() == ["read_mask"], (path, resp)
        assert descriptions(resp)[0].startswith(f'"{bad}" is not a field of hotel.v1.'), resp


def test_no_mask_or_a_star_changes_nothing(stack, issue_id):
    for path, _ in single_resources(issue_id):
        plain = stack.get(path)
        star = stack.get(path + ("&" if "?" in path else "?") + "read_mask=*")
        assert plain.status == star.status == 200
        drop = lambda body: {k: v for k, v in body.items() if k != "change_cursor"}
        assert drop(plain.json) == drop(star.json), path


def test_a_masked_resource_keeps_the_full_resources_etag(stack):
    property_id = new_property(stack, prefix="MASK", rooms=("103",))
    full = stack.get(f"/rooms/103?property_id={property_id}")
    for mask in ("number", "number,etag"):
        masked = stack.get(f"/rooms/103?property_id={property_id}&read_mask={mask}")
        # A room's joins its housekeeping's etag (1.5.0).
        assert masked.headers["ETag"] == full.headers["ETag"] == \
            f'"{full.json["etag"]}.{full.json["housekeeping"]["etag"]}"'
        again = stack.get(f"/rooms/103?property_id={property_id}&read_mask={mask}", headers={"If-None-Match": masked.headers["ETag"]})
        assert again.status == 304
    # A change of a field the mask leaves out still changes the masked resource's ETag.
    assert stack.patch(f"/rooms/103?property_id={property_id}", {"floor": 9}).status == 200
    changed = stack.get(f"/rooms/103?property_id={property_id}&read_mask=number")
    assert changed.headers["ETag"] != full.headers["ETag"]
    assert changed.json == {"number": "103"}


def test_the_cached_room_is_masked_too(stack):
    """GetRoom answers a cached room on gRPC's thread: the mask applies there as well."""
    first = stack.get("/rooms/104?property_id=BER1&read_mask=floor")
    second = stack.get("/rooms/104?property_id=BER1&read_mask=floor")
    assert first.json == second.json == {"floor": 1}
    bad = stack.get("/rooms/104?property_id=BER1&read_mask=nope")
    assert bad.status == 400 and bad.violations() == ["read_mask"]


def test_the_openapi_document_declares_the_parameter_and_the_batch_paths(stack):
    paths = stack.get("/openapi.json").json["paths"]
    assert {"/api/v1/rooms:batchGet", "/api/v1/issues:batchGet"} <= set(paths)
    for path in ("/api/v1/rooms/{number}", "/api/v1/rooms", "/api/v1/room-types/{id}", "/api/v1/room-types",
                 "/api/v1/issues/{id}", "/api/v1/issues", "/api/v1/rooms:batchGet", "/api/v1/issues:batchGet"):
        names = [p["name"] for p in paths[path]["get"].get("parameters", [])]
        assert "read_mask" in names, (path, names)


# ---- gRPC --------------------------------------------------------------------------------------

def test_grpc_batch_gets_and_masks(stack, issue_id):
    code, rooms = grpc(stack, "hotel.v1.RoomService/BatchGetRooms",
                       {"property_id": "LIS1", "numbers": ["G02", "301", "G01"], "read_mask": {"paths": ["number", "floor"]}})
    assert code == 0, rooms
    assert rooms["rooms"] == [{"number": "G02"}, {"number": "301", "floor": 3}, {"number": "G01"}]  # floor 0 is default

    code, error = grpc(stack, "hotel.v1.RoomService/BatchGetRooms", {"property_id": "LIS1", "numbers": ["G09"]})
    assert code != 0 and error["code"] == 5 and error["message"] == "room G09 does not exist in property LIS1"

    code, issues = grpc(stack, "hotel.v1.IssueService/BatchGetIssues", {"ids": [issue_id], "read_mask": {"paths": ["status"]}})
    assert code == 0 and issues == {"issues": [{"status": "IN_PROGRESS"}]}, issues

    code, room = grpc(stack, "hotel.v1.RoomService/GetRoom",
                      {"property_id": "BER1", "number": "105", "read_mask": {"paths": ["room_type_id", "images.id"]}})
    assert code == 0 and room == {"room_type_id": "BER1-SUP"}, room  # no images: BER1 has none

    code, error = grpc(stack, "hotel.v1.IssueService/GetIssue", {"id": issue_id, "read_mask": {"paths": ["timeline.who"]}})
    assert code != 0 and error["code"] == 3, error
    assert [d["field_violations"] for d in error["details"] if d["@type"].endswith("BadRequest")] == [[
        {"field": "read_mask", "description": '"timeline.who" is not a field of hotel.v1.Issue'}]]

    code, error = grpc(stack, "hotel.v1.RoomService/BatchGetRooms",
                       {"property_id": "LIS1", "numbers": [f"{n}" for n in range(101)]})
    assert code != 0 and error["code"] == 3 and "at most 100" in error["message"], error
