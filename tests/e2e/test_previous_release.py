"""The previous-release check (docs/operations.md, "Schema changes"): during a rolling deploy the
new release's migrations run while the previous release still serves. So the previous release's
hotel-server (api/releases.txt, built once from its commit by scripts/previous-release.sh and
cached) must serve, through the current gateway, on a database migrated by this tree's server,
plus one more expand-only migration that neither knows (a schema newer than the binary, as the
release after this one will bring): reads, idempotent writes, a conditional update and the
change feed."""
import os
import re
import subprocess
import uuid

import pytest

from conftest import start_cluster
from stack import PG_DIR, PG_PORT, ROOT, Stack, wait_for

MIGRATIONS = os.path.join(ROOT, "server", "migrations")


def release():
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "previous-release.sh"), "info"],
                         capture_output=True, text=True, check=True)
    version, commit = out.stdout.split()
    return version, commit


def migration_files(commit=None):
    """{file name: text} of server/migrations, in this tree or at commit."""
    if commit is None:
        return {f: open(os.path.join(MIGRATIONS, f)).read() for f in os.listdir(MIGRATIONS) if f.endswith(".sql")}
    listed = subprocess.run(["git", "-C", ROOT, "ls-tree", "--name-only", commit, "server/migrations/"],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.fail(f"release commit {commit} is not in this clone (a shallow clone?): git fetch --unshallow",
                    pytrace=False)
    names = listed.stdout.split()
    return {os.path.basename(n): subprocess.run(["git", "-C", ROOT, "show", f"{commit}:{n}"], capture_output=True,
                                                text=True, check=True).stdout
            for n in names if n.endswith(".sql")}


def newest(files):
    return max(int(re.match(r"(\d+)_", f).group(1)) for f in files)


@pytest.fixture(scope="module")
def previous_server():
    """The previous release's version and hotel-server binary (built and cached on first use)."""
    version, _ = release()
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "previous-release.sh"), "build"],
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        pytest.fail(f"the previous release's server could not be built:\n{out.stderr[-4000:]}", pytrace=False)
    return version, out.stdout.strip().splitlines()[-1]


def test_released_migrations_are_never_edited():
    # A database that ran a released migration never runs it again: editing one changes nothing there
    # and makes fresh databases differ. Changes come as new migrations.
    version, commit = release()
    released, current = migration_files(commit), migration_files()
    for name, text in released.items():
        assert current.get(name) == text, f"{name} of release {version} was edited or removed"
    assert newest(current) >= newest(released)


def test_the_previous_release_serves_on_the_migrated_schema(previous_server):
    version, binary = previous_server
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(cluster, f"hotel_previous_release_{os.getpid()}")
    try:
        stack.create_database()
        stack.migrate()  # this tree's hotel-server --migrate-only, as the new release's init container
        head = newest(migration_files())
        assert stack.psql("SELECT max(version) FROM schema_migrations") == str(head)
        # The release after this one: an expand-only migration (a nullable column on a hot table, a
        # new table) that neither this tree nor the previous release knows.
        stack.psql(f"""BEGIN;
            ALTER TABLE issues ADD COLUMN previous_release_check text;
            CREATE TABLE previous_release_check (id bigint PRIMARY KEY);
            INSERT INTO schema_migrations (version, name) VALUES ({head + 1}, 'previous_release_check');
            COMMIT;""")

        if tuple(int(p) for p in version.split(".")) < (1, 1, 0):
            # 1.0.0 predates the database roles (1.1.0): it served and migrated as the schema owner.
            stack.db_url = stack.owner_url
        stack.start_server(binary=binary)
        stack.start_gateway()
        stack.wait_ready()
        health = stack.get("/health").json
        assert health["version"] == version, health  # the previous release's binary serves
        assert stack.get("/health/startup").json["schema_version"] == head + 1

        rooms = stack.get("/rooms?property_id=BER1&page_size=5")
        assert rooms.status == 200 and len(rooms.json["data"]) == 5, rooms
        room = stack.get("/rooms/104?property_id=BER1")
        assert room.status == 200 and room.json["number"] == "104", room

        request_id = str(uuid.uuid4())
        body = {"property_id": "BER1", "room_number": "104", "title": "Shower drains slowly",
                "category": "PLUMBING", "priority": "MEDIUM", "reported_by": "previous release",
                "request_id": request_id}
        created = stack.post("/issues", body)
        assert created.status == 201, created
        again = stack.post("/issues", body)
        assert again.status == 201 and again.json["id"] == created.json["id"], again
        assert stack.psql(f"SELECT count(*) FROM issues WHERE request_id = '{request_id}'") == "1"

        issue_id = created.json["id"]
        started = stack.patch(f"/issues/{issue_id}", {"status": "IN_PROGRESS", "assignee": "Jonas"},
                              headers={"If-Match": f'"{created.json["etag"]}"'})
        assert started.status == 200 and started.json["status"] == "IN_PROGRESS", started
        stale = stack.patch(f"/issues/{issue_id}", {"title": "Merged?"},
                            headers={"If-Match": f'"{created.json["etag"]}"'})
        assert stale.status == 409 and stale.reason() == "ETAG_MISMATCH", stale
        assert stack.get(f"/issues/{issue_id}").json["assignee"] == "Jonas"

        if tuple(int(p) for p in version.split(".")) >= (1, 1, 0):  # the change feed came with 1.1.0
            cursor, seen = rooms.json["change_cursor"], []

            def both_seen():
                changes = stack.get(f"/changes?after={cursor}&page_size=100")
                assert changes.status == 200, changes
                seen[:] = [(c["kind"], c["etag"]) for c in changes.json["data"] if c["resource_id"] == issue_id]
                return len(seen) >= 2

            wait_for(both_seen, 10)
            assert seen == [("CREATED", created.json["etag"]), ("UPDATED", started.json["etag"])]
    finally:
        stack.stop()
