"""The binaries' command line (docs/configuration.md, "Flags"): --version of each names the release
CMakeLists.txt declares, and the old snake_case flag spellings still work, with a warning naming
the kebab-case one."""
import json
import os
import re
import subprocess

import pytest

from stack import BIN, ROOT


def cmake_version():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return re.search(r"^project\(hotel_data_service VERSION ([0-9.]+)", text, re.M).group(1)


@pytest.mark.parametrize("binary", ["hotel-server", "hotel-images", "hotel-admin", "hotel-gateway"])
def test_version_prints_the_cmake_version(binary):
    out = subprocess.run([os.path.join(BIN, binary), "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{binary} {cmake_version()}\n"


def warnings_of(stderr):
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [line["body"] for line in lines if line["severity_text"] == "WARN"]


def test_old_spellings_work_and_warn_with_the_new_one(fresh_stack, tmp_path):
    migrate = subprocess.run([os.path.join(BIN, "hotel-server"), "--migrate_only"], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, DATABASE_URL=fresh_stack.db_url,
                                                   MIGRATION_DATABASE_URL=fresh_stack.owner_url))
    assert migrate.returncode == 0, migrate.stderr
    assert fresh_stack.psql("SELECT to_regclass('rooms') IS NOT NULL") == "t"
    assert warnings_of(migrate.stderr) == ["--migrate_only is an old spelling, accepted through 1.x: use --migrate-only"]

    # hotel-images takes --database_url and --origin_dir as it did: gc reports the store it was given.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CDN_ORIGIN_DIR", "IMAGE_STORE")}
    old = subprocess.run([os.path.join(BIN, "hotel-images"), "gc", "--database_url", fresh_stack.db_url,
                          f"--origin_dir={tmp_path}"], capture_output=True, text=True, timeout=60, env=env)
    assert old.returncode == 0, old.stderr
    assert json.loads(old.stdout)["store"] == f"directory {tmp_path}"
    assert warnings_of(old.stderr) == [
        "--database_url is an old spelling, accepted through 1.x: use --database-url",
        "--origin_dir is an old spelling, accepted through 1.x: use --origin-dir"]

    new = subprocess.run([os.path.join(BIN, "hotel-images"), "gc", "--database-url", fresh_stack.db_url,
                          f"--origin-dir={tmp_path}"], capture_output=True, text=True, timeout=60, env=env)
    assert new.returncode == 0, new.stderr
    assert json.loads(new.stdout)["store"] == f"directory {tmp_path}"
    assert warnings_of(new.stderr) == []


def test_an_unknown_flag_is_refused_by_name():
    out = subprocess.run([os.path.join(BIN, "hotel-images"), "gc", "--origin_dri=/tmp"], capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 2
    assert "origin-dri" in out.stderr and "unknown flag" in out.stderr
