"""The housekeeping day turn (1.5.0, docs/housekeeping.md) with two server replicas on one database, each
running the daily passes every 50 ms: when a property's local date turns, its rooms take what its housekeeping
policy says the night does — for each value of occupied_nightly_condition, vacant_nightly_downgrade and
vacant_dirty_after_days — each change one history entry by "system" with its reason and one ROOM change on the
feed, once whatever number of replicas ran the pass.

As in test_room_block_transitions.py, the date turning is the database's: the pass compares each property's
local date now with the one it last applied (housekeeping_day_turns.applied_through). The test sets the rooms'
state through the API, then moves the applied date back a day, and the next pass of either replica finds the
date turned."""
import concurrent.futures
import time

import pytest

from conftest import new_property, replica_pair
from stack import wait_for
from test_change_diff import cursor_of
from test_observability import scrape, value
from webhook_receiver import feed

SERVER_ARGS = ["--block-transition-interval=50ms"]
ZONE = "Pacific/Auckland"  # far from UTC: the property's date is not the database's
OCCUPIED = "Day turn: occupied, DIRTY by the housekeeping policy"
DOWNGRADED = "Day turn: vacant, INSPECTED to CLEAN by the housekeeping policy"
UNTOUCHED = "Day turn: vacant and untouched for 3 days, DIRTY by the housekeeping policy"


@pytest.fixture(scope="module")
def replicas():
    with replica_pair("hotel_day_turn", SERVER_ARGS) as pair:
        yield pair


def passes(stack):
    return value(scrape(stack), "hotel_server_housekeeping_day_turn_passes_total", result="ok")


def rooms_changed(stack):
    return value(scrape(stack), "hotel_server_housekeeping_day_turn_rooms_changed_total")


def bulk(stack, property_id, numbers, **body):
    resp = stack.post(f"/properties/{property_id}/rooms:setHousekeeping", {"room_numbers": numbers, **body})
    assert resp.status == 200, resp


def prepare(stack, policy):
    """A property in ZONE with policy and four rooms: 101 occupied CLEAN, 102 vacant INSPECTED, 103 vacant CLEAN
    last written three days ago, 104 occupied DIRTY; its first pass has recorded today."""
    property_id = new_property(stack, prefix="DT", rooms=("101", "102", "103", "104"), time_zone=ZONE)
    resp = stack.patch(f"/properties/{property_id}/housekeeping-policy", policy)
    assert resp.status == 200, resp
    bulk(stack, property_id, ["101", "104"], occupancy="OCCUPIED", occupancy_source="pms")
    bulk(stack, property_id, ["102", "103"], occupancy="VACANT", occupancy_source="pms")
    bulk(stack, property_id, ["101", "102", "103"], condition="CLEAN")
    bulk(stack, property_id, ["102"], condition="INSPECTED")
    stack.psql(f"UPDATE rooms SET housekeeping_updated_at = now() - interval '3 days' "
               f"WHERE property_id = '{property_id}' AND number = '103'")
    assert wait_for(lambda: stack.psql(f"SELECT count(*) FROM housekeeping_day_turns "
                                       f"WHERE property_id = '{property_id}'") == "1", 10)
    return property_id


def conditions(stack, property_id):
    listed = stack.get(f"/rooms?property_id={property_id}&page_size=10")
    assert listed.status == 200, listed
    return {r["number"]: r["housekeeping"]["condition"] for r in listed.json["data"]}


def turn(stack, *property_ids):
    """Midnight: today is not applied yet for these properties."""
    ids = ", ".join(f"'{p}'" for p in property_ids)
    stack.psql(f"UPDATE housekeeping_day_turns SET applied_through = applied_through - 1 WHERE property_id IN ({ids})")


def turned_and_settled(first, second, property_id):
    """Waits until property_id's turn is applied and both replicas have run whole passes since: any second
    application would have been made by then."""
    assert wait_for(lambda: first.psql(f"SELECT applied_through = (now() AT TIME ZONE '{ZONE}')::date "
                                       f"FROM housekeeping_day_turns WHERE property_id = '{property_id}'") == "t", 20)
    counts = (passes(first), passes(second))
    assert wait_for(lambda: passes(first) >= counts[0] + 2 and passes(second) >= counts[1] + 2, 20)


def test_each_policy_value_once_with_two_replicas(replicas):
    first, second = replicas
    strict = prepare(first, {"occupied_nightly_condition": "DIRTY", "vacant_nightly_downgrade": "INSPECTED_TO_CLEAN",
                             "vacant_dirty_after_days": 3})
    lenient = prepare(first, {"occupied_nightly_condition": "KEEP", "vacant_nightly_downgrade": "NONE",
                              "vacant_dirty_after_days": 0})
    cursors = {p: cursor_of(first, p) for p in (strict, lenient)}
    changed_before = rooms_changed(first) + rooms_changed(second)
    turn(first, strict, lenient)
    assert wait_for(lambda: conditions(first, strict) == {"101": "DIRTY", "102": "CLEAN", "103": "DIRTY",
                                                          "104": "DIRTY"}, 20), conditions(first, strict)
    # Both replicas then ran whole passes of their own: any second application would have been made by now.
    counts = (passes(first), passes(second))
    assert wait_for(lambda: passes(first) >= counts[0] + 2 and passes(second) >= counts[1] + 2, 20)

    assert conditions(first, lenient) == {"101": "CLEAN", "102": "INSPECTED", "103": "CLEAN", "104": "DIRTY"}
    assert feed(first, cursors[lenient], property_id=lenient) == []
    changes = feed(first, cursors[strict], property_id=strict)
    assert sorted(c["resource_id"] for c in changes) == ["101", "102", "103"], changes
    assert all(c["resource_type"] == "ROOM" and c["kind"] == "UPDATED" and c["actor"] == "system"
               and "housekeeping_condition" in c["changed_fields"] for c in changes), changes
    assert rooms_changed(first) + rooms_changed(second) == changed_before + 3
    for number, before, after, reason in (("101", "CLEAN", "DIRTY", OCCUPIED), ("102", "INSPECTED", "CLEAN", DOWNGRADED),
                                          ("103", "CLEAN", "DIRTY", UNTOUCHED)):
        history = first.get(f"/rooms/{number}/housekeeping/history?property_id={strict}").json["data"]
        by_turn = [h for h in history if h["updated_by"] == "system"]
        assert [(h["previous_condition"], h["condition"], h["reason"]) for h in by_turn] == [(before, after, reason)]
        assert second.get(f"/rooms/{number}?property_id={strict}").json["housekeeping"]["condition"] == after

    # The next date: 102, CLEAN since the turn, is no INSPECTED room to downgrade; nothing else is left.
    cursor = cursor_of(first, strict)
    turn(first, strict)
    turned_and_settled(first, second, strict)
    assert feed(first, cursor, property_id=strict) == []


def test_a_new_propertys_first_pass_changes_nothing(replicas):
    """A property seen by the pass for the first time (every one after the upgrade) only records its date: its
    first turn is at its next midnight, never in the middle of its day."""
    first, _ = replicas
    property_id = new_property(first, prefix="DT", rooms=("101",), time_zone=ZONE)
    bulk(first, property_id, ["101"], occupancy="OCCUPIED", occupancy_source="pms")
    bulk(first, property_id, ["101"], condition="CLEAN")
    assert wait_for(lambda: first.psql(f"SELECT count(*) FROM housekeeping_day_turns "
                                       f"WHERE property_id = '{property_id}'") == "1", 10)
    assert conditions(first, property_id) == {"101": "CLEAN"}


def test_the_turn_on_two_replicas_while_bulk_sets_write_the_same_rooms(replicas):
    """Two housekeeping apps bulk-set the same 40 occupied rooms CLEAN, one through each replica, while both
    replicas' passes find the date turned: no 5xx, every acknowledged write in the history once, and each room
    changed by the turn exactly once (each was CLEAN when the turn locked it), its change on the feed once."""
    first, second = replicas
    numbers = [str(100 + i) for i in range(1, 41)]
    property_id = new_property(first, prefix="DT", rooms=numbers, time_zone=ZONE)
    bulk(first, property_id, numbers, occupancy="OCCUPIED", occupancy_source="pms", condition="CLEAN")
    assert wait_for(lambda: first.psql(f"SELECT count(*) FROM housekeeping_day_turns "
                                       f"WHERE property_id = '{property_id}'") == "1", 10)
    cursor = cursor_of(first, property_id)
    rounds = 15

    def writer(stack, name, order):
        acknowledged = 0
        for i in range(rounds):
            resp = stack.post(f"/properties/{property_id}/rooms:setHousekeeping",
                              {"room_numbers": order, "condition": "CLEAN", "updated_by": name})
            assert resp.status < 500, resp
            acknowledged += resp.status == 200
            if i == rounds // 3 and name == "Ana":
                turn(first, property_id)
        return acknowledged

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        writers = [pool.submit(writer, first, "Ana", numbers), pool.submit(writer, second, "Marta", numbers[::-1])]
        acknowledged = {name: w.result() for name, w in zip(("Ana", "Marta"), writers)}
    assert acknowledged == {"Ana": rounds, "Marta": rounds}
    turned_and_settled(first, second, property_id)

    by_writer = first.psql(f"SELECT updated_by, count(*) FROM room_housekeeping_history WHERE property_id = "
                           f"'{property_id}' AND updated_by IN ('Ana', 'Marta') GROUP BY 1 ORDER BY 1")
    assert by_writer == f"Ana|{rounds * 40}\nMarta|{rounds * 40}", by_writer
    turned = first.psql(f"SELECT count(*), count(DISTINCT room_number) FROM room_housekeeping_history "
                        f"WHERE property_id = '{property_id}' AND updated_by = 'system' AND reason = '{OCCUPIED}'")
    assert turned == "40|40", turned
    changes = [c for c in feed(first, cursor, property_id=property_id) if c["actor"] == "system"]
    assert sorted(c["resource_id"] for c in changes) == sorted(numbers), changes


def test_guest_service_requests_clear_at_the_turn(replicas):
    """A guest service request is for one day: the turn clears it, with the night's condition where the policy
    gives one, and alone (the condition kept, its own history entry and feed change) where it gives none."""
    first, _ = replicas
    property_id = prepare(first, {"occupied_nightly_condition": "KEEP", "vacant_nightly_downgrade": "NONE",
                                  "vacant_dirty_after_days": 0})
    bulk(first, property_id, ["101"], service_request="DO_NOT_DISTURB")
    bulk(first, property_id, ["104"], service_request="MAKE_UP_ROOM")
    cursor = cursor_of(first, property_id)
    turn(first, property_id)
    assert wait_for(lambda: first.psql(f"SELECT count(*) FROM rooms WHERE property_id = '{property_id}' "
                                       f"AND housekeeping_service_request <> 'NONE'") == "0", 20)
    assert conditions(first, property_id) == {"101": "CLEAN", "102": "INSPECTED", "103": "CLEAN", "104": "DIRTY"}
    for number, request in (("101", "DO_NOT_DISTURB"), ("104", "MAKE_UP_ROOM")):
        latest = first.get(f"/rooms/{number}/housekeeping/history?property_id={property_id}").json["data"][0]
        assert (latest["updated_by"], latest["reason"], latest["service_request"]) == (
            "system", "Day turn: guest service request cleared", "NONE"), (request, latest)
    changes = [c for c in feed(first, cursor, property_id=property_id) if c["actor"] == "system"]
    assert sorted(c["resource_id"] for c in changes) == ["101", "104"], changes


def test_a_pms_bridge_a_housekeeping_app_and_the_turn_on_200_rooms(replicas):
    """Issue 58's concurrency check. A PMS bridge reports each of 200 rooms occupied, then vacant (a check-out),
    then retries the first message, now older than the stored observation; a housekeeping app bulk-sets the same
    rooms CLEAN over and over; both replicas' day turns find the date turned meanwhile. No 5xx; the retried
    messages change nothing (occupancy_applied false, no history entry); every acknowledged write is in the
    history once, each entry following on the one before it (nothing lost or doubled); the turn changed each room
    at most once; and each room ends vacant, in the state its last history entry says."""
    first, second = replicas
    numbers = [str(1000 + i) for i in range(200)]
    property_id = new_property(first, prefix="DT", rooms=numbers, time_zone=ZONE)
    t0 = int(time.time()) - 3600  # observed: vacant at t0, arrival t0 + 1 s, check-out + 3 s, the stale retry + 2 s

    def stamp(seconds):
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0 + seconds))

    bulk(first, property_id, numbers, occupancy="VACANT", occupancy_source="pms", occupancy_observe_time=stamp(0),
         condition="CLEAN")
    assert wait_for(lambda: first.psql(f"SELECT count(*) FROM housekeeping_day_turns "
                                       f"WHERE property_id = '{property_id}'") == "1", 10)

    def pms(stack, rooms):
        applied = []
        for number in rooms:
            for occupancy, at in (("OCCUPIED", 1), ("VACANT", 3), ("OCCUPIED", 2)):
                resp = stack.patch(f"/rooms/{number}/housekeeping?property_id={property_id}",
                                   {"occupancy": occupancy, "occupancy_source": "pms",
                                    "occupancy_observe_time": stamp(at), "updated_by": "pms"})
                assert resp.status == 200, resp
                applied.append(resp.json["occupancy_applied"])
        return applied

    def app(stack, rounds):
        for i in range(rounds):
            resp = stack.post(f"/properties/{property_id}/rooms:setHousekeeping",
                              {"room_numbers": numbers, "condition": "CLEAN", "updated_by": "app"})
            assert resp.status == 200, resp
            if i == rounds // 2:
                turn(first, property_id)
        return rounds

    rounds = 8
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        bridges = [pool.submit(pms, first, numbers[:100]), pool.submit(pms, second, numbers[100:])]
        housekeeping_app = pool.submit(app, second, rounds)
        applied = bridges[0].result() + bridges[1].result()
        assert housekeeping_app.result() == rounds
    assert applied == [True, True, False] * 200, "only the retried, older messages are not applied"
    turned_and_settled(first, second, property_id)

    by_actor = first.psql(f"SELECT updated_by, count(*), count(DISTINCT room_number) FROM room_housekeeping_history "
                          f"WHERE property_id = '{property_id}' AND updated_by IN ('pms', 'app') GROUP BY 1 ORDER BY 1")
    assert by_actor == f"app|{rounds * 200}|200\npms|400|200", by_actor
    turned = first.psql(f"SELECT count(*) FILTER (WHERE n > 1) FROM (SELECT count(*) AS n FROM "
                        f"room_housekeeping_history WHERE property_id = '{property_id}' AND updated_by = 'system' "
                        f"AND reason LIKE 'Day turn:%' GROUP BY room_number) t")
    assert turned == "0", "the turn changed a room twice"
    broken = first.psql(f"""
        SELECT count(*) FROM (
          SELECT previous_condition, previous_occupancy,
                 lag(condition) OVER w AS condition_before, lag(occupancy) OVER w AS occupancy_before
          FROM room_housekeeping_history WHERE property_id = '{property_id}'
          WINDOW w AS (PARTITION BY room_number ORDER BY id)) h
        WHERE condition_before IS NOT NULL
          AND (previous_condition, previous_occupancy) IS DISTINCT FROM (condition_before, occupancy_before)""")
    assert broken == "0", "a history entry does not follow on the one before it"
    final = first.psql(f"""
        SELECT count(*) FROM rooms r WHERE r.property_id = '{property_id}'
          AND (r.housekeeping_occupancy <> 'VACANT'
               OR r.housekeeping_occupancy_observed_at <> '{stamp(3)}'::timestamptz
               OR r.housekeeping_condition <> (SELECT h.condition FROM room_housekeeping_history h
                                               WHERE h.property_id = r.property_id AND h.room_number = r.number
                                               ORDER BY h.id DESC LIMIT 1))""")
    assert final == "0", "a room is not in the state its history ends with, or not vacant as last observed"
