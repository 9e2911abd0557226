"""Backup benchmark (not a test): base backup and restore of the 1M-issue data set of
maintenance_bench.py with the barman cloud tools against moto's S3 server, the RPO observed when the
cluster is lost while writes come in, and the time from scripts/restore.sh to the service answering.

    bash tests/perf/run.sh backup_bench.py [--issues N] [--schedules N] [--write-seconds S]

Goals (issue 24): RPO <= 60 s, no acknowledged write lost before the recovered point, restore of
the 1M-issue set <= 5 minutes on the 2-core machine. Runs its own cluster (HOTEL_BENCH_PG_PORT,
default 54354; the restore on the next port) in .local/backup-bench."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import threading
import time
import uuid

import boto3

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
sys.path.insert(0, os.path.dirname(__file__))
from maintenance_bench import LOAD  # noqa: E402
from stack import ROOT, Cluster, Stack, free_port, wait_for  # noqa: E402

PORT = int(os.environ.get("HOTEL_BENCH_PG_PORT", "54354"))
DIRECTORY = os.path.join(ROOT, ".local", "backup-bench")
BUCKET, PREFIX = "hotel-backups", "bench"


def script(name, *args, env):
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", name), *args], capture_output=True, text=True, env=env)
    assert out.returncode == 0, f"{name}: {out.stdout}\n{out.stderr}"
    return out.stdout.strip()


def stored_bytes(s3, prefix):
    total = count = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        for item in page.get("Contents", []):
            total += item["Size"]
            count += 1
    return total, count


def mib(n):
    return f"{n / 2**20:.0f} MiB"


class Writer(threading.Thread):
    """POST /issues at a steady rate; records (acknowledged at, id) of every 201."""

    def __init__(self, stack, per_second):
        super().__init__(daemon=True)
        self.stack, self.period, self.acked, self.stop = stack, 1 / per_second, [], threading.Event()

    def run(self):
        n = 0
        while not self.stop.is_set():
            t0 = time.time()
            try:
                resp = self.stack.post("/issues", {"property_id": "BER1", "room_number": "101",
                                                   "title": f"RPO write {n}", "category": "HVAC", "priority": "LOW",
                                                   "reported_by": "backup bench", "request_id": str(uuid.uuid4())},
                                       timeout=5)
                if resp.status == 201:
                    self.acked.append((time.time(), resp.json["id"]))
            except OSError:
                pass  # the database is gone
            n += 1
            time.sleep(max(0.0, self.period - (time.time() - t0)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issues", type=int, default=1_000_000)
    parser.add_argument("--schedules", type=int, default=100_000)
    parser.add_argument("--write-seconds", type=float, default=75,
                        help="writes before the loss (at a random point after 30 s)")
    parser.add_argument("--writes-per-second", type=float, default=20)
    args = parser.parse_args()

    moto_port = free_port()
    moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    store = {"HOTEL_BACKUP_DESTINATION": f"s3://{BUCKET}/{PREFIX}",
             "HOTEL_BACKUP_ENDPOINT_URL": f"http://127.0.0.1:{moto_port}", "AWS_ACCESS_KEY_ID": "bench",
             "AWS_SECRET_ACCESS_KEY": "bench-secret", "AWS_DEFAULT_REGION": "us-east-1"}
    source_env = dict(os.environ, HOTEL_PG_PORT=str(PORT), HOTEL_PG_DIR=os.path.join(DIRECTORY, "source"), **store)
    restored_env = dict(os.environ, HOTEL_PG_PORT=str(PORT + 1), HOTEL_PG_DIR=os.path.join(DIRECTORY, "restored"),
                        **store)
    stop = lambda env: subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "stop", "immediate"],
                                      capture_output=True, env=env)
    for env in (source_env, restored_env):
        stop(env)
    shutil.rmtree(DIRECTORY, ignore_errors=True)
    s3 = boto3.client("s3", endpoint_url=store["HOTEL_BACKUP_ENDPOINT_URL"], aws_access_key_id="bench",
                      aws_secret_access_key="bench-secret", region_name="us-east-1")
    source = restored = None
    try:
        assert wait_for(lambda: subprocess.run(["curl", "-fs", "-o", "/dev/null", store["HOTEL_BACKUP_ENDPOINT_URL"]])
                        .returncode == 0, 30)
        script("postgres.sh", "start", env=source_env)
        source = Stack(Cluster(PORT, source_env["HOTEL_PG_DIR"]), "hotel").start()
        started = time.time()
        source.psql(LOAD.format(issues=args.issues, schedules=args.schedules))
        while int(source.psql("SELECT count(*) FROM issue_rollup_deltas")) > 1000 or \
                int(source.psql("SELECT count(*) FROM change_staging")) > 1000:
            time.sleep(1)
        source.psql("VACUUM (ANALYZE)")
        issues = int(source.psql("SELECT count(*) FROM issues"))
        db_size = int(source.psql("SELECT pg_database_size('hotel')"))
        print(f"data set: {issues} issues, database {mib(db_size)}, loaded in {time.time() - started:.0f} s")
        # The load's WAL is archived one segment at a time (what a bulk import does to the RPO).
        t0 = time.time()
        segment = source.psql("SELECT pg_walfile_name(pg_switch_wal())", source.admin_url)
        assert wait_for(lambda: source.psql(f"SELECT last_archived_wal >= '{segment}' FROM pg_stat_archiver",
                                            source.admin_url) == "t", 1800)
        wal_bytes, wal_files = stored_bytes(s3, f"{PREFIX}/hotel/wals/")
        print(f"WAL archive caught up {time.time() - t0:.0f} s after the load: {wal_files} segments, "
              f"{mib(wal_bytes)} stored (gzip)")

        t0 = time.time()
        backup_id = script("backup.sh", env=source_env)
        backup_seconds = time.time() - t0
        base_bytes, base_files = stored_bytes(s3, f"{PREFIX}/hotel/base/{backup_id}/")
        print(f"base backup {backup_id}: {backup_seconds:.1f} s, {mib(base_bytes)} stored (gzip, {base_files} objects)")

        # The loss: writes come in, and at a random moment the cluster and its disk are gone.
        writer = Writer(source, args.writes_per_second)
        writer.start()
        loss_after = random.uniform(30, args.write_seconds)
        time.sleep(loss_after)
        loss_at = time.time()
        stop(source_env)
        shutil.rmtree(source_env["HOTEL_PG_DIR"])
        writer.stop.set()
        writer.join()
        acked = [a for a in writer.acked if a[0] <= loss_at]
        source.stop(keep_database=True)
        source = None
        wal_bytes, wal_files = stored_bytes(s3, f"{PREFIX}/hotel/wals/")
        print(f"writes: {len(acked)} acknowledged in {loss_after:.0f} s, then the cluster was lost; "
              f"WAL archive {mib(wal_bytes)} in {wal_files} segments (gzip)")

        t0 = time.time()
        script("restore.sh", "--target-time", "latest", env=restored_env)
        restore_seconds = time.time() - t0
        restored = Stack(Cluster(PORT + 1, restored_env["HOTEL_PG_DIR"]), "hotel")
        restored.migrate()
        restored.start_server()
        restored.start_gateway()
        restored.wait_ready(timeout=120)
        assert restored.get("/issues?page_size=1").status == 200
        answering_seconds = time.time() - t0
        recovered = {row for row in restored.psql("SELECT id FROM issues WHERE reported_by = 'backup bench'").split()}
        present = [a for a in acked if a[1] in recovered]
        # No hole: every write acknowledged before the last one recovered is there too.
        holes = [a for a in acked if a[1] not in recovered and present and a[0] <= present[-1][0]]
        rpo = loss_at - (present[-1][0] if present else started)
        print(f"restore.sh (latest): {restore_seconds:.1f} s; service answering {answering_seconds:.1f} s after "
              f"restore.sh began; {int(restored.psql('SELECT count(*) FROM issues'))} issues")
        print(f"RPO observed: {rpo:.1f} s (last recovered write acknowledged that long before the loss; "
              f"archive_timeout 30 s); {len(acked) - len(present)} acknowledged writes lost, all after it; "
              f"{len(holes)} holes")
        print(f"goals: RPO <= 60 s {'yes' if rpo <= 60 else 'NO'}; no hole {'yes' if not holes else 'NO'}; "
              f"restore <= 5 min {'yes' if answering_seconds <= 300 else 'NO'}")
    finally:
        for stack in (source, restored):
            if stack:
                stack.stop(keep_database=True)
        for env in (source_env, restored_env):
            stop(env)
        moto.terminate()
        shutil.rmtree(DIRECTORY, ignore_errors=True)


if __name__ == "__main__":
    main()
