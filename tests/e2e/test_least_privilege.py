"""Least privilege against the real binaries: the server serves as the runtime role (DML only) and
migrates only with the owner's URL; secrets stay out of the logs."""
import os
import subprocess

import pytest

from stack import BIN, wait_for


def sessions_by_role(stack):
    """Roles of the client sessions open in the stack's database, other than the test's own (asked
    as the superuser: pg_stat_activity shows other roles' sessions only to it)."""
    rows = stack.psql("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() "
                      "AND backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY 1",
                      stack.cluster.url("admin", stack.database))
    return rows.split("\n") if rows else []


def password_of(url):
    return url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]


def test_the_server_holds_only_runtime_role_sessions(api):
    assert api.get("/rooms/101?property_id=BER1").status == 200
    assert api.get("/issues?page_size=1").status == 200
    assert sessions_by_role(api) == ["hotel_runtime"]


@pytest.mark.parametrize("sql", [
    "CREATE TABLE it_new (n int)",
    "CREATE TEMP TABLE it_temp (n int)",
    "DROP TABLE rooms",
    "ALTER TABLE rooms ADD COLUMN it_extra int",
    "TRUNCATE issues",
    "CREATE DATABASE it_database",
    "CREATE ROLE it_role",
])
def test_the_runtime_role_cannot_change_the_schema(api, sql):
    out = subprocess.run(["psql", api.db_url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], capture_output=True, text=True)
    assert out.returncode != 0
    assert "permission denied" in out.stderr or "must be owner" in out.stderr, out.stderr


def test_no_password_reaches_a_log(api):
    assert api.get("/rooms/101?property_id=BER1").status == 200
    migrate = subprocess.run([os.path.join(BIN, "hotel-server"), "--migrate-only"], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, DATABASE_URL=api.db_url,
                                                  MIGRATION_DATABASE_URL=api.owner_url))
    assert migrate.returncode == 0, migrate.stderr
    for log in (open(api.server_log).read(), migrate.stdout + migrate.stderr):
        assert "schema ready" in log
        for url in (api.db_url, api.owner_url, api.admin_url):
            assert password_of(url) not in log


def test_without_the_owner_url_a_new_database_fails_the_start_and_the_log_says_why(fresh_stack):
    # Migrations finish or fail the start before the port opens: the server exits, and the
    # orchestrator's restarts show it until the owner's URL is given.
    with pytest.raises(RuntimeError, match="exited with 1"):
        fresh_stack.start_server()
    assert "MIGRATION_DATABASE_URL" in open(fresh_stack.server_log).read()
    assert fresh_stack.psql("SELECT to_regclass('rooms') IS NULL") == "t"  # nothing half-made


def test_with_the_owner_url_the_server_migrates_then_serves_as_the_runtime_role(fresh_stack):
    fresh_stack.start_server(extra_args=("--migration-database-url", fresh_stack.owner_url))
    fresh_stack.start_gateway()
    fresh_stack.wait_ready()
    assert fresh_stack.get("/rooms/101?property_id=BER1").status == 200
    # The owner's session closed once migrated; requests use the runtime role only.
    assert wait_for(lambda: sessions_by_role(fresh_stack) == ["hotel_runtime"], 5), sessions_by_role(fresh_stack)
    log = open(fresh_stack.server_log).read()
    assert "schema ready" in log
    assert password_of(fresh_stack.owner_url) not in log and password_of(fresh_stack.db_url) not in log
