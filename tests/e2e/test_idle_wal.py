"""An idle service writes nothing to the database: after some writes have gone through every background worker
(change feed sequencer and pruner, rollup folder, webhook sender, health monitor; their intervals shortened so
each runs hundreds of times), the WAL does not move while nothing is asked of the service. On a cluster of its
own, so no other test's writes or autovacuum count. With archive_timeout, an idle cluster then ships no WAL
segments at all (docs/performance.md, "Idle WAL")."""
import glob
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import start_cluster
from stack import ROOT, Stack, free_port, wait_for
from webhook_receiver import Receiver

DIRECTORY = os.environ.get("HOTEL_IDLE_WAL_DIR", os.path.join(ROOT, ".local", "idle-wal"))
IDLE_SECONDS = float(os.environ.get("HOTEL_IDLE_WAL_SECONDS", "30"))
FAST_WORKERS = ["--change-poll-interval", "5ms", "--change-prune-interval", "100ms",
                "--change-heartbeat-interval", "100ms", "--rollup-fold-interval", "50ms",
                "--webhook-poll-interval", "20ms", "--health-interval", "100ms"]


@pytest.fixture(scope="module")
def idle_stack():
    shutil.rmtree(DIRECTORY, ignore_errors=True)
    env, cluster = start_cluster(free_port(), DIRECTORY)
    stack = Stack(cluster, "hotel_idle")
    stack.create_database()
    stack.migrate()
    stack.start_server(extra_args=FAST_WORKERS)
    stack.start_gateway()
    stack.wait_ready()
    receiver = Receiver()
    yield stack, receiver
    receiver.close()
    stack.stop()
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", "immediate"], env=env,
                   capture_output=True)
    shutil.rmtree(DIRECTORY, ignore_errors=True)


def wal_lsn(stack):
    return stack.psql("SELECT pg_current_wal_insert_lsn()", stack.cluster.url("admin", stack.database))


def wal_bytes(stack, before, after):
    return int(stack.psql(f"SELECT pg_wal_lsn_diff('{after}', '{before}')",
                          stack.cluster.url("admin", stack.database)))


# What PostgreSQL writes on its own: vacuum's and pruning's records (autovacuum analyses template1 on a new cluster
# and vacuums pg_statistic after an ANALYZE, also while the service is idle), the background writer's snapshots of
# running transactions and checkpoints. A write of the service's is a heap or index change to one of its tables.
VACUUM_KINDS = {("Heap2", "PRUNE"), ("Heap2", "VACUUM"), ("Heap2", "VISIBLE"), ("Heap2", "FREEZE_PAGE"),
                ("Btree", "VACUUM"), ("Heap", "INPLACE")}
FIRST_USER_OID = 16384


def wal_records(before, after):
    """(resource manager, record kind, relation "tablespace/database/relfilenode" or "", bytes) of each WAL record
    from before to after (pg_waldump)."""
    if before == after:
        return []
    waldump = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_waldump"))[-1]
    out = subprocess.run([waldump, "-p", os.path.join(DIRECTORY, "pgdata", "pg_wal"), "-s", before, "-e", after],
                         capture_output=True, text=True)
    records = []
    for line in out.stdout.splitlines():
        match = re.search(r"rmgr: (\S+)\s+len \(rec/tot\):\s+\d+/\s*(\d+),.*desc: (\S+)", line)
        if match:
            rel = re.search(r"blkref #0: rel (\S+)", line)
            records.append((match.group(1), match.group(3), rel.group(1) if rel else "", int(match.group(2))))
    return records


def is_service_write(record, database_oid):
    rmgr, kind, rel, _ = record
    if not rel or (rmgr, kind) in VACUUM_KINDS:
        return False
    _, database, relfilenode = rel.split("/")
    return database == database_oid and int(relfilenode) >= FIRST_USER_OID


def test_an_idle_service_writes_no_wal(idle_stack):
    stack, receiver = idle_stack
    hook = stack.post("/webhooks", {"url": receiver.url})
    assert hook.status in (200, 201), hook
    issue = stack.post("/issues", {"property_id": "BER1", "room_number": "101", "title": "Idle WAL check",
                                   "priority": "LOW", "category": "OTHER", "reported_by": "e2e"})
    assert issue.status in (200, 201), issue
    # Sequenced into the change feed, delivered to the webhook, folded into the rollups.
    assert wait_for(lambda: any(issue.json["id"] in json.dumps(r["json"]) for r in receiver.requests), 20), \
        receiver.requests
    assert wait_for(lambda: stack.psql("SELECT count(*) FROM issue_rollup_deltas") == "0", 10)
    # What follows any writes anyway, outside the service: autovacuum's and the checkpointer's turn, now.
    admin = stack.cluster.url("admin", stack.database)
    stack.psql("ANALYZE", admin)
    stack.psql("VACUUM", admin)
    stack.psql("CHECKPOINT", admin)
    database_oid = stack.psql("SELECT oid FROM pg_database WHERE datname = current_database()", admin)
    before = wal_lsn(stack)
    time.sleep(IDLE_SECONDS)  # the idle period under test: nothing to wait for, nothing should happen
    after = wal_lsn(stack)
    assert stack.get("/health").status == 200  # the service was up and polling all along
    records = wal_records(before, after)
    assert records or before == after, "pg_waldump read nothing"
    service = [r for r in records if is_service_write(r, database_oid)]
    print(f"\nidle WAL in {IDLE_SECONDS:.0f} s: {wal_bytes(stack, before, after)} bytes in {len(records)} records, "
          f"{sum(r[3] for r in service)} bytes from the service; PostgreSQL's own: "
          f"{sorted(set((r[0], r[1]) for r in records if r not in service))}")
    assert service == [], f"the idle service wrote WAL: {service[:20]}"
