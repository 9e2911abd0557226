"""The backup drill (docs/operations.md, "Backups and recovery"): a cluster of its own archives its
WAL with barman-cloud-wal-archive to an S3 endpoint (moto's server); N acknowledged writes, a
base backup (scripts/backup.sh), M more, the time T, K more, then the accident (the schema owner
deletes every issue). The cluster is then lost, and scripts/restore.sh --target-time T brings up a
new one from the object store alone; the real server and gateway on it must show exactly the N + M
writes, with the etags they had, a change feed that goes on from the restored data, and 410
CURSOR_EXPIRED for a consumer's cursor from the lost timeline, even once new changes pass it.
restore.sh refuses a time before every backup and a directory that holds a cluster."""
import os
import shutil
import subprocess
import time
import uuid
from datetime import datetime, timezone

import pytest

from changefeed import http_error, position
from objectstore import moto_server
from stack import ROOT, Cluster, Stack, cluster_port, free_port, wait_for

N, M, K = 6, 5, 4
DIRECTORY = os.path.join(ROOT, ".local", "backup-drill")
SOURCE_PORT = int(os.environ.get("HOTEL_BACKUP_DRILL_PG_PORT") or cluster_port(os.path.join(DIRECTORY, "source")))
RESTORED_PORT = SOURCE_PORT + 1 if "HOTEL_BACKUP_DRILL_PG_PORT" in os.environ else free_port()


def script(name, *args, env, timeout=300):
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", name), *args], capture_output=True, text=True,
                         env=env, timeout=timeout)
    assert out.returncode == 0, f"{name} failed: {out.stdout}\n{out.stderr}{postgres_log_end(env)}"
    return out.stdout.strip()


def postgres_log_end(env, lines=30):
    """The end of the cluster's PostgreSQL log, for a failure message: why it did not start or recover."""
    path = os.path.join(env.get("HOTEL_PG_DIR", ""), "postgres.log")
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        return f"\nthe end of {path}:\n" + "".join(f.readlines()[-lines:])


def stop_cluster(env):
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", "immediate"], capture_output=True,
                   env=env)


def create_issue(stack, label):
    body = {"property_id": "BER1", "room_number": "101", "title": f"Drill {label}", "category": "PLUMBING",
            "priority": "LOW", "reported_by": "Backup drill", "request_id": str(uuid.uuid4())}
    resp = stack.post("/issues", body)
    assert resp.status == 201, resp  # acknowledged: committed before the answer
    return resp.json["id"]


def all_issue_ids(stack, restored_only=None):
    """The ids of every issue; with restored_only (the drill's facts), of those created before the
    restore began (the tests write new ones on the restored cluster, in any order)."""
    ids, token = set(), ""
    while True:
        resp = stack.get(f"/issues?page_size=500&page_token={token}")
        assert resp.status == 200, resp
        ids |= {issue["id"] for issue in resp.json["data"]
                if not restored_only or created(issue) < restored_only["restore_began"]}
        token = resp.json.get("next_page_token", "")
        if not token:
            return ids


def created(issue):
    return datetime.fromisoformat(issue["created_at"].replace("Z", "+00:00"))


def feed_until(stack, cursor, ids, timeout=20):
    """Pages the change feed after cursor until a change of every issue in ids was read; the
    changes read and the cursor after them."""
    changes, deadline = [], time.time() + timeout
    while time.time() < deadline:
        resp = stack.get(f"/changes?after={cursor}&page_size=500")
        assert resp.status == 200, resp
        changes += resp.json["data"]
        cursor = resp.json["next_cursor"]
        if set(ids) <= {c["resource_id"] for c in changes}:
            return changes, cursor
        if not resp.json["data"]:
            time.sleep(0.05)
    raise AssertionError(f"the feed did not show {ids}")


def etag(stack, issue_id):
    resp = stack.get(f"/issues/{issue_id}")
    assert resp.status == 200, resp
    assert resp.headers["ETag"].strip('"') == resp.json["etag"], resp.headers["ETag"]
    return resp.json["etag"]


@pytest.fixture(scope="module")
def object_store():
    """moto's S3 server, and the environment that points the cluster at it."""
    with moto_server() as endpoint:
        yield {"HOTEL_BACKUP_DESTINATION": "s3://hotel-backups/drill", "HOTEL_BACKUP_ENDPOINT_URL": endpoint,
               "AWS_ACCESS_KEY_ID": "drill", "AWS_SECRET_ACCESS_KEY": "drill-secret", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def drill(object_store):
    source_env = dict(os.environ, HOTEL_PG_PORT=str(SOURCE_PORT), HOTEL_PG_DIR=os.path.join(DIRECTORY, "source"),
                      **object_store)
    restored_env = dict(os.environ, HOTEL_PG_PORT=str(RESTORED_PORT),
                        HOTEL_PG_DIR=os.path.join(DIRECTORY, "restored"), **object_store)
    for env in (source_env, restored_env):
        stop_cluster(env)
    shutil.rmtree(DIRECTORY, ignore_errors=True)
    facts = {}
    restored = None
    try:
        script("postgres.sh", "start", env=source_env)
        source = Stack(Cluster(SOURCE_PORT, source_env["HOTEL_PG_DIR"]), "hotel").start()
        try:
            facts["seeded"] = all_issue_ids(source)
            facts["start_cursor"] = source.get("/issues?page_size=1").json["change_cursor"]
            facts["n"] = [create_issue(source, f"N{i}") for i in range(N)]
            backup_started = datetime.now(timezone.utc)
            facts["backup_id"] = script("backup.sh", env=source_env)
            backup_done = time.time()
            facts["m"] = [create_issue(source, f"M{i}") for i in range(M)]
            # T comes after the M writes are in the change log (sequenced and committed), so the
            # restored feed holds them, and before the first of the K writes.
            _, facts["cursor_at_t"] = feed_until(source, facts["start_cursor"], facts["m"])
            # restore.sh knows a backup's end to the second only, so T keeps more than that from it.
            time.sleep(max(0.2, backup_done + 1.2 - time.time()))
            target = datetime.now(timezone.utc)
            time.sleep(0.2)
            facts["etags"] = {i: etag(source, i) for i in facts["n"] + facts["m"]}
            facts["k"] = [create_issue(source, f"K{i}") for i in range(K)]
            # A consumer that has read the K changes holds a newer cursor than the restore keeps.
            _, facts["newer_cursor"] = feed_until(source, facts["cursor_at_t"], facts["k"])
            assert position(facts["newer_cursor"]) > position(facts["cursor_at_t"])
            # The accident, then the WAL holding it is archived (as archive_timeout would do).
            source.psql("BEGIN; DELETE FROM issue_events; DELETE FROM issues; COMMIT;")
            assert source.get(f"/issues/{facts['n'][0]}").status == 404
            segment = source.psql("SELECT pg_walfile_name(pg_switch_wal())", source.admin_url)
            assert wait_for(lambda: source.psql("SELECT last_archived_wal >= '" + segment + "' FROM pg_stat_archiver",
                                                source.admin_url) == "t", 60), "the WAL was not archived"
        finally:
            source.stop(keep_database=True)
        # The database is gone: cluster and directory.
        stop_cluster(source_env)
        shutil.rmtree(source_env["HOTEL_PG_DIR"])

        started = time.time()
        facts["restore_began"] = datetime.now(timezone.utc)
        script("restore.sh", "--target-time", target.isoformat(), env=restored_env)
        facts["restore_seconds"] = time.time() - started
        restored = Stack(Cluster(RESTORED_PORT, restored_env["HOTEL_PG_DIR"]), "hotel")
        # It never archives into the history it came from (until given a destination of its own).
        assert not os.path.exists(os.path.join(restored_env["HOTEL_PG_DIR"], "backup.env"))
        assert restored.psql("SHOW archive_mode", restored.admin_url) == "off"
        restored.migrate()  # as the deployment's init container would: nothing to do
        restored.start_server()
        restored.start_gateway()
        restored.wait_ready()
        facts["answering_seconds"] = time.time() - started
        facts["restored_env"], facts["backup_started"] = restored_env, backup_started
        print(f"\nbackup drill: restore.sh {facts['restore_seconds']:.1f} s, service answering after "
              f"{facts['answering_seconds']:.1f} s")
        yield restored, facts
    finally:
        if restored:
            restored.stop(keep_database=True)
        for env in (source_env, restored_env):
            stop_cluster(env)
        shutil.rmtree(DIRECTORY, ignore_errors=True)


def test_exactly_the_writes_acknowledged_before_the_target_time_are_back(drill):
    stack, facts = drill
    assert all_issue_ids(stack, restored_only=facts) == facts["seeded"] | set(facts["n"]) | set(facts["m"])
    for issue_id in facts["k"]:
        assert stack.get(f"/issues/{issue_id}").status == 404, issue_id


def test_restored_issues_keep_their_etags_and_timelines(drill):
    stack, facts = drill
    assert {i: etag(stack, i) for i in facts["etags"]} == facts["etags"]
    issue = stack.get(f"/issues/{facts['m'][-1]}").json
    assert [event["type"] for event in issue["timeline"]][:1] == ["CREATED"]
    # Writable again: an update needs the etag the client already held.
    resp = stack.patch(f"/issues/{facts['m'][-1]}", {"priority": "HIGH", "updated_by": "Backup drill"},
                       headers={"Content-Type": "application/json", "If-Match": f'"{facts["etags"][facts["m"][-1]]}"'})
    assert resp.status == 200, resp


def test_the_change_feed_goes_on_from_the_restored_data(drill):
    stack, facts = drill
    resp = stack.get(f"/changes?after={facts['start_cursor']}&page_size=500&resource_type=ISSUE")
    assert resp.status == 200, resp
    # What the feed held at the restore (the other tests add changes after it).
    made_since = all_issue_ids(stack) - all_issue_ids(stack, restored_only=facts)
    restored = [c["resource_id"] for c in resp.json["data"]
                if c["kind"] == "CREATED" and c["resource_id"] not in made_since]
    assert restored == facts["n"] + facts["m"]
    assert not [c for c in resp.json["data"] if c["kind"] == "DELETED"]
    # A consumer that had read up to T resumes and gets the new changes, numbered past every
    # cursor the lost timeline handed out.
    new = create_issue(stack, "after the restore")
    changes, _ = feed_until(stack, facts["cursor_at_t"], [new])
    assert {c["resource_id"] for c in changes if c["resource_type"] == "ISSUE"} >= {new}
    assert not {c["resource_id"] for c in changes} & set(facts["k"])
    assert all(position(c["cursor"]) > position(facts["newer_cursor"]) for c in changes)


def test_a_cursor_from_the_lost_timeline_is_refused_not_skipped(drill):
    stack, facts = drill
    create_issue(stack, "passing the lost cursor")  # the log is ahead of it now, in positions
    status, body = http_error(f"{stack.base}/changes?after={facts['newer_cursor']}")
    assert status == 410 and body["details"][0]["reason"] == "CURSOR_EXPIRED", body
    assert "restored" in body["message"] and "list" in body["message"]
    status, body = http_error(f"{stack.base}/changes/stream",
                              {"Accept": "text/event-stream", "Last-Event-ID": facts["newer_cursor"]})
    assert status == 410 and body["details"][0]["reason"] == "CURSOR_EXPIRED", body
    # Listing again gives a cursor that works.
    fresh = stack.get("/issues?page_size=1").json["change_cursor"]
    assert stack.get(f"/changes?after={fresh}").status == 200


def test_restore_refuses_a_time_before_every_backup_and_an_existing_cluster(drill):
    _, facts = drill
    env = dict(facts["restored_env"], HOTEL_PG_DIR=os.path.join(DIRECTORY, "too-early"),
               HOTEL_PG_PORT=str(RESTORED_PORT + 1))
    early = subprocess.run(["bash", os.path.join(ROOT, "scripts", "restore.sh"), "--target-time",
                            facts["backup_started"].isoformat()], capture_output=True, text=True, env=env, timeout=120)
    assert early.returncode == 1 and "no complete base backup ended before" in early.stderr, early.stderr
    assert not os.path.exists(os.path.join(DIRECTORY, "too-early", "pgdata"))
    again = subprocess.run(["bash", os.path.join(ROOT, "scripts", "restore.sh"), "--target-time", "latest"],
                           capture_output=True, text=True, env=facts["restored_env"], timeout=120)
    assert again.returncode == 1 and "holds a cluster already" in again.stderr, again.stderr
