"""The change feed (docs/changes.md) through the real gateway and over gRPC: list-then-watch,
ListChanges paging and filters, Server-Sent Events with Last-Event-ID, 410 for an expired cursor,
400 for a malformed one, 304 for an unchanged GET (the ETag is the etag field where there is one), ordering with 8 concurrent writers, a slow
watcher cut off, and resuming after the server is killed and after PostgreSQL restarts."""
import collections
import json
import os
import signal
import subprocess
import threading
import time
import uuid

import grpc
import pytest

from changefeed import Collector, grpc_watch, http_error, position, sse_events
from conftest import start_cluster
from stack import PG_DIR, PG_PORT, ROOT, Stack, cluster_port, free_port, wait_for

ROOMS = ["101", "102", "103", "201", "202", "203"]


def new_issue(stack, room="101", title="Dripping tap", **extra):
    body = {"property_id": "BER1", "room_number": room, "title": title, "category": "PLUMBING", "priority": "LOW",
            "reported_by": "Ana Costa", **extra}
    resp = stack.post("/issues", body)
    assert resp.status == 201, resp
    return resp.json


def changes_after(stack, cursor, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    resp = stack.get(f"/changes?after={cursor}&page_size=500" + (f"&{query}" if query else ""))
    assert resp.status == 200, resp
    return resp.json


def drain(stack, cursor, until, timeout=20, **params):
    """Pages ListChanges after cursor until until(changes) holds; returns the changes."""
    changes, deadline = [], time.time() + timeout
    while time.time() < deadline:
        page = changes_after(stack, cursor, **params)
        changes += page["data"]
        cursor = page["next_cursor"]
        if until(changes):
            return changes
        if not page["data"]:
            time.sleep(0.02)
    raise AssertionError(f"timed out with {len(changes)} changes")


class IssueWriters:
    """Threads creating issues and changing each a few times through REST, recording every
    acknowledged write: per issue, the etags in the order they were acknowledged."""

    def __init__(self, stack, threads, issues_each, updates_each, tolerate_errors=False):
        self.stack, self.issues_each, self.updates_each = stack, issues_each, updates_each
        self.tolerate_errors = tolerate_errors
        self.acked = collections.defaultdict(list)
        self.lock = threading.Lock()
        self.errors = collections.Counter()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def join(self, timeout=300):
        for t in self.threads:
            t.join(timeout)

    def _call(self, fn):
        while True:
            try:
                resp = fn()
            except OSError as err:
                resp = None
                self.errors[type(err).__name__] += 1
            if resp is not None and resp.status in (200, 201):
                return resp.json
            if resp is not None:
                self.errors[resp.status] += 1
            # Refused before it ran (admission control on a busy machine): what a caller does,
            # back off and send the same write again (creates carry a request_id, updates If-Match).
            overloaded = resp is not None and resp.status == 503 and "OVERLOADED" in json.dumps(resp.json)
            if not self.tolerate_errors and not overloaded:
                raise AssertionError(f"write failed: {resp}")
            time.sleep(0.05)

    def _run(self, worker):
        priorities = ["MEDIUM", "HIGH", "URGENT", "LOW"]
        for n in range(self.issues_each):
            request_id = str(uuid.uuid4())
            body = {"property_id": "BER1", "room_number": ROOMS[(worker + n) % len(ROOMS)], "title": f"w{worker} #{n}",
                    "category": "HVAC", "priority": "LOW", "reported_by": f"writer {worker}", "request_id": request_id}
            issue = self._call(lambda: self.stack.post("/issues", body))
            with self.lock:
                if not self.acked[issue["id"]]:
                    self.acked[issue["id"]].append(issue["etag"])
            for u in range(self.updates_each):
                etag = self.acked[issue["id"]][-1]
                updated = self._call(lambda: self.stack.patch(f"/issues/{issue['id']}", {"priority": priorities[u % 4]},
                                                              headers={"If-Match": f'"{etag}"'}))
                with self.lock:
                    if updated["etag"] != self.acked[issue["id"]][-1]:
                        self.acked[issue["id"]].append(updated["etag"])

    def total(self):
        return sum(len(v) for v in self.acked.values())


def check_feed(changes, writers, label):
    """Every acknowledged write exactly once, cursors strictly increasing and without gaps, and each
    issue's changes in the order its writes were acknowledged."""
    positions = [position(c["cursor"]) for c in changes]
    assert positions == sorted(set(positions)), f"{label}: cursors not strictly increasing"
    assert positions[-1] - positions[0] + 1 == len(positions), f"{label}: a gap in the log positions"
    seen = collections.defaultdict(list)
    for c in changes:
        if c["resource_type"] == "ISSUE":
            seen[c["resource_id"]].append(c["etag"])
    for issue_id, etags in writers.acked.items():
        assert seen[issue_id] == etags, f"{label}: issue {issue_id}: saw {seen[issue_id]}, acknowledged {etags}"


# ---- on the shared stack

def sequenced(stack):
    """Waits until every committed change has its place on the feed, so a cursor read now comes after the
    changes the tests before made (a list's change_cursor is the feed's head; changes still staged would
    come after it)."""
    assert wait_for(lambda: stack.psql("SELECT count(*) FROM change_staging") == "0", 10)


def test_list_then_watch_misses_nothing_and_filters_apply(api):
    sequenced(api)
    listed = api.get("/issues?property_id=BER1&page_size=1")
    assert listed.status == 200 and listed.json["change_cursor"], listed
    for path in ["/properties", "/room-types", "/rooms", "/rooms/101/equipment?property_id=BER1",
                 "/maintenance/schedules", "/room-types/BER1-STD/images", "/rooms/101/images?property_id=BER1"]:
        resp = api.get(path)
        assert resp.status == 200 and position(resp.json["change_cursor"]) >= 0, (path, resp)
    cursor = listed.json["change_cursor"]
    issue = new_issue(api, room="102", take_room_out_of_order=True)
    changes = drain(api, cursor, lambda cs: any(c["resource_type"] == "ROOM" and c["resource_id"] == "102" for c in cs))
    created = [c for c in changes if c["resource_id"] == issue["id"]]
    assert [(c["kind"], c["etag"], c["actor"]) for c in created] == [("CREATED", issue["etag"], "Ana Costa")]
    room = next(c for c in changes if c["resource_type"] == "ROOM" and c["resource_id"] == "102")
    assert room["kind"] == "UPDATED" and "out_of_order" in room["changed_fields"] and room["actor"] == "Ana Costa"
    assert room["resource"] is None

    rooms_only = changes_after(api, cursor, resource_type="ROOM", property_id="BER1", view="CHANGE_VIEW_FULL")
    assert rooms_only["data"] and {c["resource_type"] for c in rooms_only["data"]} == {"ROOM"}
    assert rooms_only["data"][0]["resource"]["out_of_order"] is True
    assert changes_after(api, cursor, property_id="LIS1")["data"] == []
    # Pages continue from next_cursor, one change at a time.
    first = api.get(f"/changes?after={cursor}&page_size=1").json
    second = api.get(f"/changes?after={first['next_cursor']}&page_size=1").json
    assert position(second["data"][0]["cursor"]) == position(first["data"][0]["cursor"]) + 1

    with grpc.insecure_channel(api.grpc_addr) as channel:
        watch = Collector(grpc_watch(channel, cursor, timeout=20), until=lambda cs: len(cs) >= len(changes))
        assert watch.done.wait(20) and watch.error is None, watch.error
        assert [c["cursor"] for c in watch.changes] == [c["cursor"] for c in changes]


def test_equipment_schedules_and_images_are_in_the_feed(api):
    cursor = api.get("/maintenance/schedules?page_size=1").json["change_cursor"]
    fan = api.post("/rooms/110/equipment", {"property_id": "BER1", "name": "Ceiling fan", "type": "fan"})
    assert fan.status == 201, fan
    today = time.strftime("%Y-%m-%d", time.gmtime())
    schedule = api.post("/maintenance/schedules", {"property_id": "BER1", "room_number": "110", "task": "Dust the fan",
                                                   "interval_unit": "MONTH", "interval_count": 1, "starts_on": today})
    assert schedule.status == 201, schedule
    done = api.post(f"/maintenance/schedules/{schedule.json['id']}", {"action": "COMPLETE", "completed_by": "Jonas"})
    assert done.status == 200, done
    # An image added by the ingest command's SQL path (the trigger sees any writer).
    image_id = api.psql("INSERT INTO images (room_type_id, content_sha256, alt_text, sort_order, width, height) "
                        f"VALUES ('LIS1-STD', '{'ab' * 32}', 'Feed test', 99, 10, 10) RETURNING id")

    def is_ours(change):  # other tests change images meanwhile
        return change["resource_type"] == "IMAGE" and change["resource_id"] == image_id

    try:
        changes = drain(api, cursor, lambda cs: any(is_ours(c) for c in cs))
    finally:
        api.psql("DELETE FROM images WHERE alt_text = 'Feed test'")  # the gallery tests count images
    kinds = [(c["resource_type"], c["kind"], c["resource_id"]) for c in changes]
    assert ("EQUIPMENT", "CREATED", fan.json["id"]) in kinds
    assert ("SCHEDULE", "CREATED", schedule.json["id"]) in kinds
    completed = [c for c in changes if c["resource_id"] == schedule.json["id"] and c["kind"] == "UPDATED"]
    assert completed and {"last_completed_at", "next_due_on"} <= set(completed[0]["changed_fields"]), completed
    image = next(c for c in changes if is_ours(c))
    assert image["kind"] == "CREATED" and image["property_id"] == "LIS1"


def test_a_gets_etag_is_its_etag_field_and_follows_equipment_and_pictures(api):
    path = "/rooms/104?property_id=BER1"
    first = api.get(path)
    # A room's joins its housekeeping's etag (1.5.0: docs/housekeeping.md, "Two etags").
    assert first.headers["ETag"] == f'"{first.json["etag"]}.{first.json["housekeeping"]["etag"]}"'
    for resource in ["/properties/LIS1", "/room-types/LIS1-STD"]:
        got = api.get(resource)
        assert got.headers["ETag"] == f'"{got.json["etag"]}"', resource
    # The ETag header serves If-Match as it is.
    same = api.patch(path, {"extra_amenities": first.json["extra_amenities"]}, headers={"If-Match": first.headers["ETag"]})
    assert same.status == 200, same
    fan = api.post("/rooms/104/equipment", {"property_id": "BER1", "name": "Desk fan", "type": "fan"})
    assert fan.status == 201, fan
    after_fan = api.get(path, headers={"If-None-Match": first.headers["ETag"]})
    assert after_fan.status == 200 and after_fan.json["equipment_count"] == first.json["equipment_count"] + 1
    assert after_fan.headers["ETag"] == f'"{after_fan.json["etag"]}.{after_fan.json["housekeeping"]["etag"]}"' \
        != first.headers["ETag"]
    room_type = api.get("/room-types/LIS1-STD")
    api.psql("INSERT INTO images (room_type_id, content_sha256, alt_text, sort_order, width, height) "
             f"VALUES ('LIS1-STD', '{'cd' * 32}', 'ETag test', 98, 10, 10)")
    try:
        changed = api.get("/room-types/LIS1-STD", headers={"If-None-Match": room_type.headers["ETag"]})
    finally:
        api.psql("DELETE FROM images WHERE alt_text = 'ETag test'")  # the gallery tests count images
    assert changed.status == 200 and changed.headers["ETag"] != room_type.headers["ETag"], changed


def test_bad_requests_name_the_field(api):
    for path in ["/changes?after=nonsense", "/changes/stream?after=nonsense"]:
        status, body = http_error(api.base + path)
        assert status == 400 and body["details"][0]["reason"] == "INVALID_CURSOR", body
        assert body["details"][1]["field_violations"][0]["field"] == "after"
    status, body = http_error(api.base + "/changes/stream", {"Accept": "text/event-stream", "Last-Event-ID": "x"})
    assert status == 400 and body["details"][0]["reason"] == "INVALID_CURSOR"
    assert api.get("/changes?resource_type=CAT").status == 400
    assert api.get("/changes?property_id=nope").status == 400
    with grpc.insecure_channel(api.grpc_addr) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            next(grpc_watch(channel, "AQAAAAAAAAAA_", timeout=5))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_unchanged_get_answers_304_and_a_change_a_new_etag(api):
    paths = ["/properties/BER1", "/room-types/BER1-STD", "/rooms/103?property_id=BER1",
             "/rooms/103/maintenance?property_id=BER1"]
    issue = new_issue(api, room="103")
    paths.append(f"/issues/{issue['id']}")
    etags = {}
    for path in paths:
        first = api.get(path)
        etags[path] = first.headers["ETag"]
        assert first.status == 200 and etags[path].startswith('"'), (path, first)
        again = api.get(path, headers={"If-None-Match": etags[path]})
        assert again.status == 304 and again.text == "" and again.headers["ETag"] == etags[path], (path, again)
        assert api.get(path, headers={"If-None-Match": '"stale"'}).status == 200
    assert etags[f"/issues/{issue['id']}"] == f'"{issue["etag"]}"'
    updated = api.patch(f"/issues/{issue['id']}", {"take_room_out_of_order": True})
    assert updated.status == 200, updated
    for path in ["/rooms/103?property_id=BER1", "/rooms/103/maintenance?property_id=BER1", f"/issues/{issue['id']}"]:
        changed = api.get(path, headers={"If-None-Match": etags[path]})
        assert changed.status == 200 and changed.headers["ETag"] != etags[path], path


def test_sse_resumes_from_last_event_id(api):
    cursor = api.get("/issues?page_size=1").json["change_cursor"]
    issues = [new_issue(api, room="201", title=f"SSE {i}") for i in range(3)]
    ids = {i["id"] for i in issues}
    url = f"{api.base}/changes/stream?after={cursor}&resource_type=ISSUE"
    resp, events = sse_events(url)
    assert resp.headers["Content-Type"] == "text/event-stream"
    kind, _, heartbeat = next(events)
    assert kind == "comment" and heartbeat.startswith("heartbeat "), heartbeat
    received = []
    for kind, event_id, data in events:
        if kind == "message" and data["resource_id"] in ids:
            assert event_id == data["cursor"]
            received.append(event_id)
            if len(received) == 2:
                break
    resp.close()
    # An EventSource reconnects with Last-Event-ID and no query cursor.
    resp, events = sse_events(f"{api.base}/changes/stream?resource_type=ISSUE", last_event_id=received[-1])
    for kind, event_id, data in events:
        if kind == "message":
            assert position(event_id) > position(received[-1])
            if data["resource_id"] in ids:
                received.append(event_id)
                break
    resp.close()
    assert len(received) == 3 and len(set(received)) == 3
    ndjson = api.get(f"/changes/stream?after=AQAAAAAAAAAA_")
    assert ndjson.status == 400


# ---- ordering under load

def test_ordering_with_8_writers_10000_changes(api, capsys):
    cursor = api.get("/rooms?page_size=1").json["change_cursor"]
    writers = IssueWriters(api, threads=8, issues_each=250, updates_each=4)
    expected = 8 * 250 * 5
    own = lambda cs: sum(1 for c in cs if c["resource_type"] == "ISSUE" and c["resource_id"] in writers.acked)
    with grpc.insecure_channel(api.grpc_addr) as channel:
        watch = Collector(grpc_watch(channel, cursor, timeout=600), until=lambda cs: own(cs) >= expected)
        pager = {}
        pager_thread = threading.Thread(
            target=lambda: pager.setdefault("changes", drain(api, cursor, lambda cs: own(cs) >= expected, timeout=600)),
            daemon=True)
        pager_thread.start()
        started = time.time()
        writers.start()
        writers.join()
        took = time.time() - started
        assert writers.total() == expected, writers.total()
        assert watch.done.wait(60) and watch.error is None, watch.error
        pager_thread.join(60)
    check_feed(watch.changes, writers, "watcher")
    check_feed(pager["changes"], writers, "pager")
    n = min(len(watch.changes), len(pager["changes"]))
    assert [c["cursor"] for c in watch.changes[:n]] == [c["cursor"] for c in pager["changes"][:n]]
    with capsys.disabled():
        print(f"\nchange feed: {expected} changes by 8 writers in {took:.1f}s ({expected / took:.0f}/s); watcher and "
              f"pager saw each once, in order ({watch.heartbeats} heartbeats)")


# ---- stacks of their own

SHORT_RETENTION = ["--change-retention", "1s", "--change-prune-interval", "100ms", "--change-watcher-buffer", "200",
                   "--change-heartbeat-interval", "60s", "--change-max-watchers", "3"]


@pytest.fixture(scope="module")
def short_retention_stack():
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(cluster, f"hotel_changes_{os.getpid()}")
    stack.create_database()
    stack.migrate()
    stack.start_server(extra_args=SHORT_RETENTION)
    stack.start_gateway()
    stack.wait_ready()
    yield stack
    stack.stop()


def test_expired_cursor_is_410_and_says_to_list_again(short_retention_stack):
    stack = short_retention_stack
    old = stack.get("/issues?page_size=1").json["change_cursor"]
    new_issue(stack)
    new_issue(stack)
    # Both changes are pruned a second later; `old` then points before them.
    assert wait_for(lambda: stack.get(f"/changes?after={old}").status == 410, 10)
    status, body = http_error(f"{stack.base}/changes?after={old}")
    assert status == 410 and body["details"][0]["reason"] == "CURSOR_EXPIRED" and "list" in body["message"]
    status, body = http_error(f"{stack.base}/changes/stream", {"Accept": "text/event-stream", "Last-Event-ID": old})
    assert status == 410 and body["details"][0]["reason"] == "CURSOR_EXPIRED"
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            next(grpc_watch(channel, old, timeout=5))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    # Listing again gives a cursor that works.
    fresh = stack.get("/issues?page_size=1").json["change_cursor"]
    assert stack.get(f"/changes?after={fresh}").status == 200


def test_slow_watcher_is_cut_off_and_others_keep_up(short_retention_stack, capsys):
    stack = short_retention_stack
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    # No BDP probing: the slow client's flow-control window stays at 64 KiB.
    with grpc.insecure_channel(stack.grpc_addr, options=[("grpc.http2.bdp_probe", 0)]) as slow_channel, \
            grpc.insecure_channel(stack.grpc_addr) as channel:
        # The slow watcher reads one message and then nothing: its connection fills (64 KiB of
        # view FULL changes), its server thread blocks in Write, and its queue (200 changes here)
        # overflows.
        slow = grpc_watch(slow_channel, full=True, timeout=120)
        next(slow)
        writers = IssueWriters(stack, threads=4, issues_each=100, updates_each=4)
        expected = 4 * 100 * 5
        own = lambda cs: sum(1 for c in cs if c["resource_id"] in writers.acked)
        fast = Collector(grpc_watch(channel, cursor, timeout=300), until=lambda cs: own(cs) >= expected)
        writers.start()
        writers.join()
        assert fast.done.wait(60) and fast.error is None, fast.error
        check_feed(fast.changes, writers, "fast watcher")
        with pytest.raises(grpc.RpcError) as cut_off:
            for _ in slow:
                pass
    assert cut_off.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, cut_off.value
    assert "resume after" in cut_off.value.details()
    with capsys.disabled():
        print(f"\nslow watcher cut off ({cut_off.value.details()}); the other received all {expected} changes")


def test_watchers_beyond_the_limit_get_429(short_retention_stack):
    stack = short_retention_stack
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        calls = []

        def watch():
            # Watchers of the tests before may take a moment (their cancellation) to be gone.
            call = grpc_watch(channel, timeout=30)
            try:
                next(call)
            except grpc.RpcError as err:
                assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                return False
            calls.append(call)
            return True
        for _ in range(3):
            assert wait_for(watch, 5)
        status, body = http_error(f"{stack.base}/changes/stream", {"Accept": "text/event-stream"})
        assert status == 429 and body["details"][0]["reason"] == "WATCHER_LIMIT", body
        for call in calls:
            call.cancel()
    # Cancelled watchers free their places.
    assert wait_for(lambda: http_error(f"{stack.base}/changes?page_size=1")[0] == 200, 5)


def test_resume_after_the_server_is_killed_mid_stream(short_retention_stack):
    stack = short_retention_stack
    port = int(stack.grpc_addr.rsplit(":", 1)[1])
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    # Creates only: a retried create is idempotent (request_id), a retried If-Match update is not.
    writers = IssueWriters(stack, threads=2, issues_each=120, updates_each=0, tolerate_errors=True)
    expected = 2 * 120
    received, last, reconnects = [], cursor, 0
    writers.start()
    killed = False
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            resp, events = sse_events(f"{stack.base}/changes/stream", last_event_id=last)
        except OSError:  # 503 while the server is down
            time.sleep(0.1)
            continue
        reconnects += 1
        try:
            for kind, event_id, data in events:
                if kind == "error":
                    break
                if kind == "message":
                    received.append(data)
                    last = event_id
                    if len(received) == 40 and not killed:
                        stack.server.send_signal(signal.SIGKILL)
                        stack.server.wait()
                        killed = True
                        stack.start_server(f"127.0.0.1:{port}", extra_args=SHORT_RETENTION)
                if kind == "comment" and writers.total() >= expected and \
                        sum(1 for c in received if c["resource_id"] in writers.acked) >= expected:
                    break
        except OSError:
            pass
        resp.close()
        if sum(1 for c in received if c["resource_id"] in writers.acked) >= expected and writers.total() >= expected:
            break
    writers.join()
    assert killed and reconnects >= 2
    check_feed(received, writers, "resumed SSE watcher")


@pytest.fixture(scope="module")
def restart_cluster():
    directory = os.path.join(ROOT, ".local", "changes-restart")
    port = int(os.environ.get("HOTEL_CHANGES_PG_PORT") or cluster_port(directory))
    env, cluster = start_cluster(port, directory)
    stack = Stack(cluster, "hotel_changes_restart").start()
    yield stack, env
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], capture_output=True, env=env)
    stack.stop()
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop"], capture_output=True, env=env)


def test_postgres_restart_ends_the_stream_with_unavailable_and_resume_loses_nothing(restart_cluster):
    stack, env = restart_cluster
    pg = lambda *args: subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), *args], check=True,
                                      capture_output=True, env=env)
    cursor = stack.get("/issues?page_size=1").json["change_cursor"]
    before = IssueWriters(stack, threads=2, issues_each=20, updates_each=2)
    before.start()
    before.join()
    with grpc.insecure_channel(stack.grpc_addr) as channel:
        watch = Collector(grpc_watch(channel, cursor, timeout=120))
        assert wait_for(lambda: len(watch.changes) >= before.total(), 20)
        pg("stop", "immediate")
        try:
            assert watch.done.wait(20), "the stream must end when the database goes away"
            assert watch.error is not None and watch.error.code() == grpc.StatusCode.UNAVAILABLE, watch.error
        finally:
            pg("start")
        last = watch.changes[-1]["cursor"]
        after = IssueWriters(stack, threads=2, issues_each=20, updates_each=0, tolerate_errors=True).start()
        after.join()
        # Resume as a client would: retry while the feed answers UNAVAILABLE.
        for _ in range(100):
            second = Collector(grpc_watch(channel, last, timeout=60),
                               until=lambda cs: sum(1 for c in cs if c["resource_id"] in after.acked) >= 40)
            assert second.done.wait(30)
            if second.error is None or second.error.code() != grpc.StatusCode.UNAVAILABLE:
                break
            time.sleep(0.2)
        assert second.error is None, second.error
    check_feed(watch.changes + second.changes, before, "before the restart")
    check_feed(watch.changes + second.changes, after, "across the restart")
