"""Housekeeping readiness of 1.5.0 (docs/housekeeping-readiness.md) through the real gateway, server and
PostgreSQL: what housekeeping found and the discrepancies it gives, guest service requests (occupied rooms only,
cleared at check-out), cleaning priorities, whether each room is ready (the field, the room list's filter and the
overview), the typed work list, each refusal over REST and gRPC, concurrent writers of the new fields, and a day
in a hotel from arrival to the room sold again."""
import concurrent.futures
import json
import os
import random
import threading
import uuid

import pytest

from conftest import local_stack, new_property
from stack import BIN
from test_change_diff import feed
from test_housekeeping_rules import bulk, grpcurl, housekeeping, patch, settled_cursor

HAS_GRPCURL = os.path.exists(os.path.join(BIN, "grpcurl"))
NEEDS_GRPCURL = pytest.mark.skipif(not HAS_GRPCURL, reason="grpcurl not built")


@pytest.fixture(scope="module")
def api():
    """A stack of this module's own: its properties stay out of the shared stack's lists and counts."""
    stack = local_stack("hotel_housekeeping_readiness")
    yield stack
    stack.stop()


def history(api, property_id, number):
    entries, token = [], ""
    while True:
        page = api.get(f"/rooms/{number}/housekeeping/history?property_id={property_id}&page_size=500"
                       f"&page_token={token}")
        assert page.status == 200, page
        entries += page.json["data"]
        token = page.json.get("next_page_token", "")
        if not token:
            return entries


def pms(api, property_id, numbers, occupancy):
    done = bulk(api, property_id, numbers, occupancy=occupancy, occupancy_source="opera-pms")
    assert done.status == 200, done
    return done


def listed(api, property_id, query):
    page = api.get(f"/properties/{property_id}/rooms?page_size=500&{query}")
    assert page.status == 200, page
    return [room["number"] for room in page.json["data"]]


def overview(api, property_id):
    answer = api.get(f"/properties/{property_id}/housekeeping")
    assert answer.status == 200, answer
    return answer.json


def today(api):
    return api.psql("SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD')")


def test_what_housekeeping_finds_gives_skip_and_sleep_until_the_pms_agrees(api):
    property_id = new_property(api, rooms=["101", "102", "103"])
    pms(api, property_id, ["101"], "OCCUPIED")
    pms(api, property_id, ["102"], "VACANT")
    skip = patch(api, property_id, "101", {"observed_occupancy": "VACANT", "updated_by": "Ana"})
    assert skip.status == 200, skip
    assert skip.json["discrepancy"] == "SKIP" and skip.json["observed_occupancy_by"] == "Ana", skip
    assert skip.json["observed_occupancy_time"] and skip.json["observed_occupancy"] == "VACANT", skip
    assert bulk(api, property_id, ["102"], observed_occupancy="OCCUPIED").status == 200
    assert housekeeping(api, property_id, "102")["discrepancy"] == "SLEEP"
    assert housekeeping(api, property_id, "103")["discrepancy"] == "DISCREPANCY_UNSPECIFIED"
    assert listed(api, property_id, "discrepancy=SKIP") == ["101"]
    assert listed(api, property_id, "discrepancy=SLEEP") == ["102"]
    assert listed(api, property_id, "discrepancy=ANY") == ["101", "102"]
    counts = overview(api, property_id)["total"]
    assert (counts["skip_rooms"], counts["sleep_rooms"]) == (1, 1), counts
    assert "DISCREPANCY" in housekeeping(api, property_id, "102")["not_ready_reasons"]
    entry = history(api, property_id, "102")[0]
    assert entry["observed_occupancy"] == "OCCUPIED", entry

    pms(api, property_id, ["101"], "VACANT")  # the PMS learns the guest left
    assert housekeeping(api, property_id, "101")["discrepancy"] == "DISCREPANCY_UNSPECIFIED"
    assert listed(api, property_id, "discrepancy=ANY") == ["102"]


@pytest.mark.parametrize("body, field", [
    ({"observed_occupancy": "UNKNOWN"}, "observed_occupancy"),
    ({"observed_occupancy": "HALF"}, "observed_occupancy"),
    ({"service_request": "TURNDOWN"}, "service_request"),
    ({"cleaning_priority": 1000}, "cleaning_priority"),
    ({"cleaning_priority": -1}, "cleaning_priority"),
])
def test_a_bad_new_field_is_400_naming_it(api, body, field):
    property_id = new_property(api, rooms=["101"])
    refused = patch(api, property_id, "101", body)
    assert refused.status == 400 and refused.violations() == [field], refused
    refused = bulk(api, property_id, ["101"], **body)
    assert refused.status == 400 and refused.violations() == [field], refused
    assert history(api, property_id, "101") == [], "nothing was written"


def test_room_list_filters_refuse_values_they_do_not_know(api):
    property_id = new_property(api, rooms=["101"])
    refused = api.get(f"/properties/{property_id}/rooms?discrepancy=SOMETIMES")
    assert refused.status == 400, refused
    refused = api.get(f"/properties/{property_id}/rooms?ready=perhaps")
    assert refused.status == 400, refused


def test_a_service_request_needs_a_guest_and_leaves_with_them(api):
    property_id = new_property(api, rooms=["101", "102"])
    refused = patch(api, property_id, "101", {"service_request": "DO_NOT_DISTURB"})
    assert refused.status == 400 and refused.reason() == "ROOM_NOT_OCCUPIED", refused
    assert "room 101 is UNKNOWN" in refused.json["message"], refused
    pms(api, property_id, ["101"], "OCCUPIED")
    pms(api, property_id, ["102"], "VACANT")
    refused = bulk(api, property_id, ["101", "102"], service_request="MAKE_UP_ROOM")
    assert refused.status == 400 and refused.reason() == "ROOM_NOT_OCCUPIED", refused
    assert refused.json["message"].startswith("room_numbers[1]: room 102 is VACANT"), refused
    assert housekeeping(api, property_id, "101")["service_request"] == "NONE", "nothing changed"
    assert patch(api, property_id, "102", {"service_request": "NONE"}).status == 200, "NONE is for any room"

    done = patch(api, property_id, "101", {"service_request": "DO_NOT_DISTURB", "reason": "Card on the door"})
    assert done.status == 200 and done.json["service_request"] == "DO_NOT_DISTURB", done
    arrival = bulk(api, property_id, ["102"], occupancy="OCCUPIED", occupancy_source="opera-pms",
                   service_request="SERVICE_DECLINED")
    assert arrival.status == 200 and arrival.json["rooms"][0]["service_request"] == "SERVICE_DECLINED", arrival

    pms(api, property_id, ["101", "102"], "VACANT")  # check-out
    for number in ["101", "102"]:
        state = housekeeping(api, property_id, number)
        assert state["service_request"] == "NONE" and state["condition"] == "DIRTY", state
    requests = [entry["service_request"] for entry in history(api, property_id, "101")]
    assert requests[:2] == ["NONE", "DO_NOT_DISTURB"], requests


def test_a_cleaning_priority_is_set_cleared_and_in_the_history(api):
    property_id = new_property(api, rooms=["101", "102"])
    done = bulk(api, property_id, ["101", "102"], cleaning_priority=7)
    assert done.status == 200 and [r["cleaning_priority"] for r in done.json["rooms"]] == [7, 7], done
    done = patch(api, property_id, "102", {"cleaning_priority": 0})
    assert done.status == 200 and done.json["cleaning_priority"] == 0, done
    assert housekeeping(api, property_id, "101")["cleaning_priority"] == 7
    assert [e["cleaning_priority"] for e in history(api, property_id, "102")] == [0, 7]


def test_ready_rooms_the_field_the_filter_and_the_overview(api):
    property_id = new_property(api, rooms=["101", "102", "103", "104", "105", "106"])
    pms(api, property_id, ["101", "102", "103", "104", "105"], "VACANT")
    assert bulk(api, property_id, ["101", "102", "103", "104", "105", "106"], condition="CLEAN").status == 200
    assert bulk(api, property_id, ["101", "103", "104", "105", "106"], condition="INSPECTED").status == 200
    assert patch(api, property_id, "103", {"observed_occupancy": "OCCUPIED"}).status == 200
    before = api.get(f"/rooms/104?property_id={property_id}")
    assert before.json["housekeeping"]["ready"] is True, before
    block = api.post("/room-blocks", {"property_id": property_id, "room_number": "104", "type": "OUT_OF_SERVICE",
                                      "start_date": today(api), "reason": "Painting"})
    assert block.status == 201, block
    # The block changes no column of the room, but its readiness: a revalidating GET is answered anew.
    after = api.get(f"/rooms/104?property_id={property_id}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status == 200 and after.json["housekeeping"]["ready"] is False, after
    # Its housekeeping etag moves with it; Room.etag, which guards the room's data, stays good for an If-Match.
    assert after.json["etag"] == before.json["etag"], after
    assert after.json["housekeeping"]["etag"] != before.json["housekeeping"]["etag"], after
    block = api.post("/room-blocks", {"property_id": property_id, "room_number": "105", "type": "OUT_OF_ORDER",
                                      "start_date": today(api), "reason": "Leak"})
    assert block.status == 201, block
    expected = {"101": [], "102": ["NOT_INSPECTED"], "103": ["DISCREPANCY"], "104": ["OUT_OF_SERVICE"],
                "105": ["OUT_OF_ORDER"], "106": ["OCCUPANCY_UNKNOWN"]}
    for number, reasons in expected.items():
        state = housekeeping(api, property_id, number)
        assert (state["ready"], state["not_ready_reasons"]) == (not reasons, reasons), (number, state)
    assert listed(api, property_id, "ready=true") == ["101"]
    assert listed(api, property_id, "ready=false") == ["102", "103", "104", "105", "106"]
    assert listed(api, property_id, "ready=true&condition=INSPECTED") == ["101"]
    counts = overview(api, property_id)
    assert counts["total"]["ready_rooms"] == 1, counts["total"]
    assert counts["floors"][0]["counts"]["ready_rooms"] == 1 and counts["room_types"][0]["counts"]["ready_rooms"] == 1

    policy = api.patch(f"/properties/{property_id}/housekeeping-policy", {"inspection_required": False})
    assert policy.status == 200, policy
    assert housekeeping(api, property_id, "102")["ready"] is True
    assert listed(api, property_id, "ready=true") == ["101", "102"]
    assert overview(api, property_id)["total"]["ready_rooms"] == 2
    occupied = pms(api, property_id, ["101"], "OCCUPIED").json["rooms"][0]
    assert occupied["ready"] is False and occupied["not_ready_reasons"] == ["OCCUPIED"], occupied


def test_the_work_list_is_typed_ordered_and_sets_withheld_service_apart(api):
    property_id = new_property(api, rooms=["101", "102", "103", "104", "105", "106"])
    pms(api, property_id, ["101", "104", "105"], "VACANT")
    pms(api, property_id, ["102", "103"], "OCCUPIED")
    assert patch(api, property_id, "103", {"service_request": "DO_NOT_DISTURB"}).status == 200
    assert bulk(api, property_id, ["104", "105"], condition="CLEAN").status == 200
    assert bulk(api, property_id, ["105"], condition="INSPECTED").status == 200
    assert bulk(api, property_id, ["102", "106"], cleaning_priority=5).status == 200
    assert bulk(api, property_id, ["104"], cleaning_priority=1).status == 200
    answer = overview(api, property_id)
    assert [(i["room_number"], i["type"], i["cleaning_priority"]) for i in answer["work_list"]] == [
        ("104", "INSPECT", 1), ("102", "STAYOVER", 5), ("106", "DEPARTURE", 5), ("101", "DEPARTURE", 0)], answer
    first = answer["work_list"][0]
    assert first["condition"] == "CLEAN" and first["floor"] == 1 and first["room_type_id"] == f"{property_id}-STD"
    assert [(i["room_number"], i["service_request"]) for i in answer["no_service_list"]] == [
        ("103", "DO_NOT_DISTURB")], answer


@NEEDS_GRPCURL
def test_the_new_fields_and_their_refusals_over_grpc(api):
    property_id = new_property(api, rooms=["101", "102"])
    code, _, err = grpcurl(api, "UpdateRoomHousekeeping", {"property_id": property_id, "room_number": "101",
                                                           "housekeeping": {"service_request": "DO_NOT_DISTURB"}})
    assert code != 0 and json.loads(err)["code"] == 9 and "ROOM_NOT_OCCUPIED" in err, err
    code, _, err = grpcurl(api, "SetHousekeeping", {"property_id": property_id, "room_numbers": ["101"],
                                                    "cleaning_priority": 1000})
    assert code != 0 and json.loads(err)["code"] == 3 and "cleaning_priority" in err, err
    code, _, err = grpcurl(api, "SetHousekeeping", {"property_id": property_id, "room_numbers": ["101"],
                                                    "observed_occupancy": "UNKNOWN"})
    assert code != 0 and json.loads(err)["code"] == 3 and "observed_occupancy" in err, err
    code, out, err = grpcurl(api, "SetHousekeeping", {
        "property_id": property_id, "room_numbers": ["101", "102"], "occupancy": "OCCUPIED",
        "occupancy_source": "pms", "service_request": "MAKE_UP_ROOM", "observed_occupancy": "VACANT",
        "cleaning_priority": 3})
    assert code == 0, err
    room = json.loads(out)["rooms"][0]
    assert (room["service_request"], room["discrepancy"], room["cleaning_priority"]) == ("MAKE_UP_ROOM", "SKIP", 3)
    code, out, err = grpcurl(api, "ListRooms", {"property_id": property_id, "discrepancy": "SKIP", "ready": False},
                             service="RoomService")
    assert code == 0 and [r["number"] for r in json.loads(out)["data"]] == ["101", "102"], err
    code, out, err = grpcurl(api, "GetHousekeepingOverview", {"property_id": property_id})
    assert code == 0, err
    answer = json.loads(out)
    assert answer["total"]["skip_rooms"] == 2 and [i["type"] for i in answer["work_list"]] == ["STAYOVER"] * 2, out


def test_concurrent_writers_of_the_new_fields_lose_and_double_nothing(api):
    """A PMS bridge, housekeepers and a supervisor write the same rooms at once (service requests, observations,
    priorities, occupancy, conditions): no 5xx; every acknowledged write is in the room's history once (but an
    occupancy alone observed before the stored one, occupancy_applied false, which writes nothing); refusals
    (ROOM_NOT_OCCUPIED) change nothing; the final state is the last entry of each history."""
    numbers = [f"{200 + i}" for i in range(1, 21)]
    property_id = new_property(api, rooms=numbers)
    acknowledged = {n: [] for n in numbers}
    lock = threading.Lock()
    failures, refusals = [], []

    def worker(seed):
        rng = random.Random(seed)
        for _ in range(15):
            rooms = rng.sample(numbers, rng.randint(1, 5))
            reason = f"w{seed}-{uuid.uuid4().hex[:8]}"
            body = rng.choice([
                {"occupancy": rng.choice(["OCCUPIED", "VACANT"]), "occupancy_source": "pms"},
                {"service_request": rng.choice(["DO_NOT_DISTURB", "MAKE_UP_ROOM", "SERVICE_DECLINED", "NONE"])},
                {"observed_occupancy": rng.choice(["OCCUPIED", "VACANT"])},
                {"cleaning_priority": rng.randint(0, 999)},
                {"condition": rng.choice(["DIRTY", "CLEAN"])},
            ])
            if len(rooms) == 1 and rng.random() < 0.5:
                done = patch(api, property_id, rooms[0], {**body, "reason": reason})
            else:
                done = bulk(api, property_id, rooms, reason=reason, **body)
            if done.status >= 500:
                failures.append(done)
            elif done.status == 200:
                answers = done.json["rooms"] if "rooms" in done.json else [done.json]
                with lock:
                    for n, answer in zip(rooms, answers):
                        if "occupancy" not in body or answer["occupancy_applied"]:
                            acknowledged[n].append(reason)
            else:
                assert done.reason() == "ROOM_NOT_OCCUPIED", done
                refusals.append(reason)

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        list(pool.map(worker, range(12)))
    assert not failures, failures[:3]
    for n in numbers:
        entries = history(api, property_id, n)
        reasons = [e["reason"].split(" ")[0] for e in entries]  # a check-out adds why it dirtied the room
        assert sorted(reasons) == sorted(acknowledged[n]), n
        assert not set(reasons) & set(refusals), n
        state = housekeeping(api, property_id, n)
        if entries:
            last = entries[0]
            assert (state["condition"], state["occupancy"], state["service_request"], state["cleaning_priority"]) == (
                last["condition"], last["occupancy"], last["service_request"], last["cleaning_priority"]), n
        assert state["service_request"] == "NONE" or state["occupancy"] == "OCCUPIED", state


def test_a_day_in_the_hotel_from_arrival_to_the_room_sold_again(api):
    """Arrival, stay-over service with do-not-disturb, check-out, cleaning, inspection, ready, sold: read through
    the overview, the work list, the history and the feed."""
    property_id = new_property(api, rooms=["301"], floor=3)
    assert bulk(api, property_id, ["301"], condition="CLEAN").status == 200
    assert bulk(api, property_id, ["301"], condition="INSPECTED").status == 200
    pms(api, property_id, ["301"], "VACANT")
    assert overview(api, property_id)["total"]["ready_rooms"] == 1
    cursor = settled_cursor(api, property_id)

    pms(api, property_id, ["301"], "OCCUPIED")  # arrival
    assert housekeeping(api, property_id, "301")["not_ready_reasons"] == ["OCCUPIED"]
    assert bulk(api, property_id, ["301"], condition="DIRTY", reason="Night: stay-over").status == 200
    assert patch(api, property_id, "301", {"service_request": "DO_NOT_DISTURB", "updated_by": "Desk"}).status == 200
    answer = overview(api, property_id)
    assert answer["work_list"] == [] and [i["room_number"] for i in answer["no_service_list"]] == ["301"], answer
    assert patch(api, property_id, "301", {"service_request": "MAKE_UP_ROOM"}).status == 200
    assert [i["type"] for i in overview(api, property_id)["work_list"]] == ["STAYOVER"]
    assert patch(api, property_id, "301", {"condition": "CLEAN", "updated_by": "Ana"}).status == 200

    pms(api, property_id, ["301"], "VACANT")  # check-out
    state = housekeeping(api, property_id, "301")
    assert (state["condition"], state["service_request"]) == ("DIRTY", "NONE"), state
    assert [i["type"] for i in overview(api, property_id)["work_list"]] == ["DEPARTURE"]
    assert patch(api, property_id, "301", {"condition": "CLEAN", "updated_by": "Ana"}).status == 200
    assert [i["type"] for i in overview(api, property_id)["work_list"]] == ["INSPECT"]
    assert listed(api, property_id, "ready=true") == []
    assert patch(api, property_id, "301", {"condition": "INSPECTED", "updated_by": "Marta"}).status == 200
    assert overview(api, property_id)["work_list"] == []
    assert listed(api, property_id, "ready=true") == ["301"]
    sold = pms(api, property_id, ["301"], "OCCUPIED").json["rooms"][0]  # sold and checked in
    assert sold["ready"] is False, sold

    entries = history(api, property_id, "301")
    assert [(e["condition"], e["occupancy"], e["service_request"]) for e in reversed(entries[:9])] == [
        ("INSPECTED", "OCCUPIED", "NONE"), ("DIRTY", "OCCUPIED", "NONE"), ("DIRTY", "OCCUPIED", "DO_NOT_DISTURB"),
        ("DIRTY", "OCCUPIED", "MAKE_UP_ROOM"), ("CLEAN", "OCCUPIED", "MAKE_UP_ROOM"), ("DIRTY", "VACANT", "NONE"),
        ("CLEAN", "VACANT", "NONE"), ("INSPECTED", "VACANT", "NONE"), ("INSPECTED", "OCCUPIED", "NONE")], entries
    changes = [c for c in feed(api, cursor, lambda cs: len([c for c in cs if c["resource_id"] == "301"]) >= 9,
                               property_id=property_id) if c["resource_id"] == "301"]
    assert len(changes) == 9 and all(c["kind"] == "UPDATED" for c in changes), changes
