"""Many writers on the same few rooms through the real gateway, server and PostgreSQL: issue
creates (half of them taking the room out of order), status changes with If-Match, schedule
completions and equipment registrations, for a bounded time. No answer may be a 5xx, PostgreSQL
may log no deadlock, every acknowledged write must be stored exactly once, the rollups must equal
a recount of the tables, and each room's out-of-order state must be what its open holders imply."""
import collections
import os
import random
import threading
import time
import uuid

import pytest

from conftest import local_stack
from stack import PostgresLog

PROPERTY = "BER1"
ROOMS = ["101", "102", "103", "104"]
WORKERS = int(os.environ.get("HOTEL_WRITE_WORKERS", "16"))
SECONDS = float(os.environ.get("HOTEL_WRITE_SECONDS", "8"))


@pytest.fixture(scope="module")
def stack():
    stack = local_stack("hotel_writes")
    yield stack
    stack.stop()


class Workload:
    def __init__(self, stack, schedules):
        self.stack, self.schedules = stack, schedules  # schedule id -> next_due_on last seen
        self.lock = threading.Lock()
        self.statuses = collections.Counter()  # "POST /issues 201", ...
        self.issues = {}        # request_id -> last acknowledged issue (JSON)
        self.equipment = {}     # request_id -> equipment id
        self.completions = {}   # completion id -> schedule id
        self.deadline = time.time() + SECONDS

    def record(self, label, resp):
        with self.lock:
            self.statuses[f"{label} {resp.status}"] += 1

    def worker(self, seed):
        rng = random.Random(seed)
        mine = []  # request_ids of this worker's issues
        while time.time() < self.deadline:
            op = rng.random()
            room = rng.choice(ROOMS)
            if op < 0.4 or not mine:
                request_id = uuid.uuid4().hex
                resp = self.stack.post("/issues", {
                    "property_id": PROPERTY, "room_number": room, "title": f"load {request_id[:8]}",
                    "category": "PLUMBING", "reported_by": f"worker-{seed}",
                    "take_room_out_of_order": rng.random() < 0.5, "request_id": request_id})
                self.record("POST /issues", resp)
                if resp.status == 201:
                    with self.lock:
                        self.issues[request_id] = resp.json
                    mine.append(request_id)
            elif op < 0.8:
                request_id = rng.choice(mine)
                issue = self.issues[request_id]
                allowed = issue["allowed_transitions"]
                if not allowed:
                    mine.remove(request_id)
                    continue
                target = rng.choice(allowed)
                body = {"status": target}
                if target in ("ON_HOLD", "CANCELLED"):
                    body["reason"] = "waiting for parts"
                resp = self.stack.patch(f"/issues/{issue['id']}", body, headers={
                    "Content-Type": "application/json", "If-Match": issue["etag"]})
                self.record("PATCH /issues/{id}", resp)
                if resp.status == 200:
                    with self.lock:
                        self.issues[request_id] = resp.json
            elif op < 0.9:
                schedule = rng.choice(list(self.schedules))
                resp = self.stack.post(f"/maintenance/schedules/{schedule}", {
                    "action": "COMPLETE", "completed_by": f"worker-{seed}", "request_id": uuid.uuid4().hex,
                    "expected_due_on": self.schedules[schedule]})
                # Racing completions of one occurrence: one is stored, the others get 409.
                self.record("COMPLETE", resp)
                if resp.status in (200, 201):
                    with self.lock:
                        self.completions[resp.json["completion"]["id"]] = schedule
                        self.schedules[schedule] = max(self.schedules[schedule], resp.json["schedule"]["next_due_on"])
            else:
                request_id = uuid.uuid4().hex
                resp = self.stack.post(f"/rooms/{room}/equipment", {
                    "property_id": PROPERTY, "name": "Kettle", "type": "kettle", "request_id": request_id})
                self.record("POST /equipment", resp)
                if resp.status == 201:
                    with self.lock:
                        self.equipment[request_id] = resp.json["id"]


def test_concurrent_writes_on_the_same_rooms(stack):
    schedules = {}
    for room in ROOMS:
        resp = stack.post("/maintenance/schedules", {
            "property_id": PROPERTY, "room_number": room, "task": "Check taps", "interval_unit": "DAY",
            "interval_count": 1, "starts_on": "2025-01-01", "basis": "SCHEDULED_DATE"})
        assert resp.status == 201, resp
        schedules[resp.json["id"]] = resp.json["next_due_on"]
    pg_log = PostgresLog()

    load = Workload(stack, schedules)
    threads = [threading.Thread(target=load.worker, args=(seed,)) for seed in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\nwrite mix:", dict(sorted(load.statuses.items())))

    assert not [k for k in load.statuses if k.endswith(tuple(f" 5{n:02d}" for n in range(100)))], load.statuses
    assert load.statuses["POST /issues 201"] > 50 and load.statuses["PATCH /issues/{id} 200"] > 20, load.statuses
    assert load.statuses["COMPLETE 200"] + load.statuses["COMPLETE 201"] > 10, load.statuses
    assert "deadlock detected" not in pg_log.since()

    # Every acknowledged write is stored exactly once, issues in their last acknowledged state.
    rows = stack.psql("SELECT request_id, status, version FROM issues WHERE request_id IS NOT NULL")
    stored = collections.Counter()
    state = {}
    for line in rows.splitlines():
        request_id, status, version = line.split("|")
        stored[request_id] += 1
        state[request_id] = (status, int(version))
    for request_id, issue in load.issues.items():
        assert stored[request_id] == 1, request_id
        assert state[request_id][0] == issue["status"], (request_id, state[request_id], issue["status"])
    events = stack.psql("SELECT count(*) FROM issue_events e JOIN issues i ON i.id = e.issue_id"
                        " WHERE e.type = 'CREATED' AND i.request_id IS NOT NULL GROUP BY i.id HAVING count(*) <> 1")
    assert events == ""  # one CREATED event per issue
    equipment = stack.psql("SELECT request_id FROM equipment WHERE request_id IS NOT NULL").split()
    assert sorted(equipment) == sorted(load.equipment)
    ours = ", ".join(f"'{s}'" for s in schedules)
    completions = stack.psql(f"SELECT id FROM schedule_completions WHERE schedule_id IN ({ours})").split()
    assert sorted(completions) == sorted(load.completions)

    # Rollups equal a recount, before and after the background fold catches up.
    recount = ("SELECT property_id, status, priority, category, count(*) FROM issues GROUP BY 1, 2, 3, 4")
    rollup = ("SELECT property_id, status, priority, category, issues FROM issue_counters_current WHERE issues <> 0")
    for _ in range(2):
        assert stack.psql(f"({recount} EXCEPT {rollup}) UNION ALL ({rollup} EXCEPT {recount})") == ""
        assert stack.psql(
            "(SELECT property_id, next_due_on, count(*) FROM maintenance_schedules WHERE active GROUP BY 1, 2"
            " EXCEPT SELECT property_id, due_day, schedules FROM schedule_due_days_current WHERE schedules <> 0)") == ""
        stack.psql("SELECT fold_rollup_deltas()")
    stats = stack.get(f"/issues/stats?property_id={PROPERTY}").json
    assert stats["total"] == int(stack.psql(f"SELECT count(*) FROM issues WHERE property_id = '{PROPERTY}'"))
    assert stats["open_count"] == int(stack.psql(
        f"SELECT count(*) FROM issues WHERE property_id = '{PROPERTY}' AND status IN ('OPEN', 'IN_PROGRESS', 'ON_HOLD')"))

    # Each room is out of order exactly while an issue holds it, and its reason names a holder.
    for room in ROOMS:
        got = stack.get(f"/rooms/{room}?property_id={PROPERTY}").json
        holders = stack.psql(
            f"SELECT title FROM issues WHERE property_id = '{PROPERTY}' AND room_number = '{room}'"
            " AND take_room_out_of_order ORDER BY created_at, id").splitlines()
        assert got["out_of_order"] == bool(holders), (room, got, holders)
        assert got["available"] == (not holders), (room, got)
        if holders:
            assert got["out_of_order_reason"] in [f"Maintenance issue: {t}" for t in holders], (room, got, holders)
        else:
            assert got["out_of_order_reason"] == "", (room, got)
