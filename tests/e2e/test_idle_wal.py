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
FAST_WORKERS = ["--change_poll_interval", "5ms", "--change_prune_interval", "100ms",
                "--change_heartbeat_interval", "100ms", "--rollup_fold_interval", "50ms",
                "--webhook_poll_interval", "20ms", "--health_interval", "100ms"]


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


# PostgreSQL's own records on an idle cluster: the background writer's snapshot of running transactions
# (once, 15 s after the last checkpoint) and checkpoints. Everything else would be the service's.
POSTGRES_OWN = (("Standby", "RUNNING_XACTS"), ("XLOG", "CHECKPOINT_ONLINE"))


def wal_records(before, after):
    """(resource manager, description, bytes) of each WAL record from before to after (pg_waldump)."""
    if before == after:
        return []
    waldump = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_waldump"))[-1]
    out = subprocess.run([waldump, "-p", os.path.join(DIRECTORY, "pgdata", "pg_wal"), "-s", before, "-e", after],
                         capture_output=True, text=True)
    return [(m.group(1), m.group(3), int(m.group(2))) for m in
            re.finditer(r"rmgr: (\S+)\s+len \(rec/tot\):\s+\d+/\s*(\d+),.*desc: (.*)", out.stdout)]


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
    stack.psql("VACUUM ANALYZE", admin)
    stack.psql("CHECKPOINT", admin)
    before = wal_lsn(stack)
    time.sleep(IDLE_SECONDS)  # the idle period under test: nothing to wait for, nothing should happen
    after = wal_lsn(stack)
    assert stack.get("/health").status == 200  # the service was up and polling all along
    records = wal_records(before, after)
    assert records or before == after, "pg_waldump read nothing"
    service = [r for r in records if not any(r[0] == rmgr and r[1].startswith(kind) for rmgr, kind in POSTGRES_OWN)]
    print(f"\nidle WAL in {IDLE_SECONDS:.0f} s: {wal_bytes(stack, before, after)} bytes, "
          f"{sum(size for _, _, size in service)} of them from the service; PostgreSQL's own: "
          f"{[r for r in records if r not in service]}")
    assert service == [], f"the idle service wrote WAL: {service[:20]}"
