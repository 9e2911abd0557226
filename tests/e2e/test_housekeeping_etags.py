"""Two etags for a room (1.5.0, docs/housekeeping.md): Room.etag guards the room's data and
housekeeping.etag its housekeeping; each write checks its own, so an administrator's PATCH with an If-Match
read before a housekeeping write still succeeds, while a GET's HTTP ETag ("<Room.etag>.<housekeeping.etag>")
changes with either and stays right for 304s. REST and gRPC, and a concurrency test of both writers on one
room. Each test makes a property of its own on this module's stack."""
import concurrent.futures
import json
import os
import subprocess

import pytest

from conftest import local_stack, new_property
from stack import BIN

HAS_GRPCURL = os.path.exists(os.path.join(BIN, "grpcurl"))


@pytest.fixture(scope="module")
def api():
    stack = local_stack("hotel_housekeeping_etags")
    yield stack
    stack.stop()


def room(api, property_id, number="101"):
    got = api.get(f"/rooms/{number}?property_id={property_id}")
    assert got.status == 200, got
    return got


def set_condition(api, property_id, condition, number="101", **kw):
    return api.patch(f"/rooms/{number}/housekeeping?property_id={property_id}", {"condition": condition}, **kw)


def if_match(tag):
    return {"headers": {"If-Match": tag if tag.startswith('"') else f'"{tag}"'}}


def test_a_housekeeping_write_leaves_room_etag_and_an_admins_if_match_succeeds(api):
    property_id = new_property(api, rooms=["101"])
    before = room(api, property_id)
    room_etag, housekeeping_etag = before.json["etag"], before.json["housekeeping"]["etag"]
    assert room_etag != housekeeping_etag
    assert before.headers["ETag"] == f'"{room_etag}.{housekeeping_etag}"', before.headers
    written = set_condition(api, property_id, "CLEAN", **if_match(housekeeping_etag))
    assert written.status == 200 and written.json["etag"] != housekeeping_etag, written
    after = room(api, property_id)
    assert after.json["etag"] == room_etag, "a housekeeping write leaves the room data's etag"
    assert after.json["housekeeping"]["etag"] == written.json["etag"]
    assert after.headers["ETag"] != before.headers["ETag"], "the GET's ETag covers the whole answer"
    # The administrator's If-Match, read before the housekeeping write: the room's etag or the GET's ETag.
    moved = api.patch(f"/rooms/101?property_id={property_id}", {"floor": 2}, **if_match(room_etag))
    assert moved.status == 200 and moved.json["etag"] != room_etag, moved
    assert moved.json["housekeeping"]["etag"] == written.json["etag"], "a room data write leaves housekeeping's"
    again = api.patch(f"/rooms/101?property_id={property_id}", {"floor": 3}, **if_match(after.headers["ETag"]))
    assert again.status == 409 and again.reason() == "ETAG_MISMATCH", "the room data changed since: 409"
    current = room(api, property_id)
    assert api.patch(f"/rooms/101?property_id={property_id}", {"floor": 3},
                     **if_match(current.headers["ETag"])).status == 200
    # A housekeeping write with the GET's ETag checks its housekeeping part, still current.
    assert set_condition(api, property_id, "DIRTY", **if_match(current.headers["ETag"])).status == 200


def test_each_write_refuses_its_own_stale_etag_and_not_the_others(api):
    property_id = new_property(api, rooms=["101"])
    first = room(api, property_id).json
    assert set_condition(api, property_id, "CLEAN").status == 200
    stale = set_condition(api, property_id, "DIRTY", **if_match(first["housekeeping"]["etag"]))
    assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
    body_stale = api.patch(f"/rooms/101/housekeeping?property_id={property_id}",
                           {"condition": "DIRTY", "etag": first["housekeeping"]["etag"]})
    assert body_stale.status == 409, body_stale
    # Room.etag is not the housekeeping's etag: each write checks its own.
    wrong = set_condition(api, property_id, "DIRTY", **if_match(first["etag"]))
    assert wrong.status == 409 and wrong.reason() == "ETAG_MISMATCH", wrong
    # A bulk set's rooms carry their housekeeping etags (1.5.0).
    bulk = api.post(f"/properties/{property_id}/rooms:setHousekeeping", {"room_numbers": ["101"], "condition": "DIRTY"})
    assert bulk.status == 200 and bulk.json["rooms"][0]["etag"] == room(api, property_id).json["housekeeping"]["etag"]
    # 304 only for the whole answer as it is now.
    current = room(api, property_id)
    assert api.get(f"/rooms/101?property_id={property_id}",
                   headers={"If-None-Match": current.headers["ETag"]}).status == 304
    assert set_condition(api, property_id, "CLEAN").status == 200
    assert api.get(f"/rooms/101?property_id={property_id}",
                   headers={"If-None-Match": current.headers["ETag"]}).status == 200
    # The room's data etag, alone, never answers 304 for the whole answer.
    assert api.get(f"/rooms/101?property_id={property_id}",
                   headers={"If-None-Match": f'"{current.json["etag"]}"'}).status == 200
    # A masked GET's ETag is the whole resource's too.
    masked = api.get(f"/rooms/101?property_id={property_id}&read_mask=number")
    assert masked.status == 200 and masked.headers["ETag"] == room(api, property_id).headers["ETag"], masked.headers


def grpcurl(api, method, body, service):
    out = subprocess.run([os.path.join(BIN, "grpcurl"), "-plaintext", "-format-error", "-d", json.dumps(body),
                          api.grpc_addr, f"hotel.v1.{service}/{method}"], capture_output=True, text=True, timeout=20)
    return out.returncode, out.stdout, out.stderr


@pytest.mark.skipif(not HAS_GRPCURL, reason="grpcurl not built")
def test_over_grpc_each_write_checks_its_own_etag(api):
    property_id = new_property(api, rooms=["101"])
    first = room(api, property_id).json
    code, out, err = grpcurl(api, "UpdateRoomHousekeeping", {
        "property_id": property_id, "room_number": "101",
        "housekeeping": {"condition": "CLEAN", "etag": first["housekeeping"]["etag"]}}, "HousekeepingService")
    assert code == 0, err
    written = json.loads(out)
    code, out, err = grpcurl(api, "UpdateRoomHousekeeping", {
        "property_id": property_id, "room_number": "101",
        "housekeeping": {"condition": "DIRTY", "etag": first["etag"]}}, "HousekeepingService")
    assert code != 0 and json.loads(err)["code"] == 10 and "ETAG_MISMATCH" in err, (out, err)  # ABORTED
    # The administrator's etag, read before the housekeeping write.
    code, out, err = grpcurl(api, "UpdateRoom", {
        "property_id": property_id, "number": "101", "room": {"floor": 4, "etag": first["etag"]},
        "update_mask": {"paths": ["floor"]}}, "RoomService")
    assert code == 0, err
    updated = json.loads(out)
    assert updated["housekeeping"]["etag"] == written["etag"] and updated["etag"] != first["etag"], updated
    code, out, err = grpcurl(api, "UpdateRoom", {
        "property_id": property_id, "number": "101", "room": {"floor": 5, "etag": first["etag"]},
        "update_mask": {"paths": ["floor"]}}, "RoomService")
    assert code != 0 and json.loads(err)["code"] == 10 and "ETAG_MISMATCH" in err, (out, err)


def test_admin_patches_with_if_match_interleaved_with_housekeeping_writes(api):
    """One administrator reads the room and PATCHes it with If-Match, again and again, while two housekeeping
    writers set its condition: no 5xx, no 409 for the administrator (only housekeeping changed the room in
    between), every acknowledged write in the history or on the room, none lost."""
    property_id = new_property(api, rooms=["101"])
    rounds = 40

    def admin():
        floors = []
        for i in range(rounds):
            current = api.get(f"/rooms/101?property_id={property_id}")
            assert current.status == 200, current
            floor = 10 + i
            resp = api.patch(f"/rooms/101?property_id={property_id}", {"floor": floor},
                             headers={"If-Match": f'"{current.json["etag"]}"'})
            assert resp.status == 200, resp
            floors.append(floor)
        return floors

    def housekeeper(name):
        acknowledged = 0
        for i in range(rounds):
            resp = api.patch(f"/rooms/101/housekeeping?property_id={property_id}",
                             {"condition": "CLEAN" if i % 2 else "DIRTY", "updated_by": name})
            assert resp.status < 500, resp
            if resp.status == 200:
                acknowledged += 1
        return acknowledged

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        floors = pool.submit(admin)
        writers = [pool.submit(housekeeper, name) for name in ("Ana", "Marta")]
        assert floors.result()[-1] == 10 + rounds - 1
        acknowledged = sum(w.result() for w in writers)
    assert acknowledged == 2 * rounds
    final = room(api, property_id).json
    assert final["floor"] == 10 + rounds - 1, "the last administrator write stands"
    history = api.get(f"/rooms/101/housekeeping/history?property_id={property_id}&page_size=500").json["data"]
    assert sum(1 for h in history if h["updated_by"] in ("Ana", "Marta")) == acknowledged, "each write once"
