"""The migration linter (scripts/lint-migrations.sh: squawk with .squawk.toml, run by scripts/test.sh)
passes on the real migrations and fails on the ones a rolling deploy cannot survive: a fixture with
one unsafe statement per rule must be refused naming every rule, its expand-only counterpart must
pass, and an exemption must name a real migration, give a reason and still be needed."""
import os
import re
import shutil
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def lint(*files, config=None):
    env = dict(os.environ)
    if config:
        env["SQUAWK_CONFIG"] = str(config)
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "lint-migrations.sh"), *files],
                          capture_output=True, text=True, timeout=120, env=env)


def reported(out):
    """{(line, rule)} of the linter's findings."""
    return {(int(m.group(1)), m.group(2)) for m in re.finditer(r"\.sql:(\d+):\d+: ([a-z-]+):", out.stdout)}


def test_the_migrations_pass_the_linter():
    out = lint()
    assert out.returncode == 0, out.stdout + out.stderr
    count = len([f for f in os.listdir(os.path.join(ROOT, "server", "migrations")) if f.endswith(".sql")])
    assert f"migration lint: {count} files, 0 findings, 0 configuration problems" in out.stdout


def test_the_linter_refuses_each_unsafe_statement():
    out = lint(os.path.join(FIXTURES, "unsafe_migration.sql"))
    assert out.returncode == 1, out.stdout + out.stderr
    expected = {
        (4, "ban-drop-column"),  # the running release still reads and writes it
        (5, "renaming-column"),
        (6, "renaming-table"),
        (7, "ban-drop-table"),
        (8, "adding-required-field"),  # the running release's INSERTs do not set it
        (9, "adding-field-with-default"),  # volatile default: the table is rewritten under ACCESS EXCLUSIVE
        (10, "require-concurrent-index-creation"),  # writes wait for the build
        (11, "ban-concurrent-index-creation-in-transaction"),  # migrations run in one transaction
        (12, "require-concurrent-index-deletion"),
        (13, "adding-foreign-key-constraint"),  # validates while both tables are locked
        (13, "constraint-missing-not-valid"),
        (15, "constraint-missing-not-valid"),
        (16, "changing-column-type"),
        (17, "adding-not-nullable-field"),
        (18, "ban-drop-function"),
        (4, "require-lock-timeout"),  # nothing set lock_timeout before the first lock
    }
    assert expected <= reported(out), out.stdout
    assert re.search(r"1 files, 1[0-9] findings", out.stdout), out.stdout


def test_the_expand_half_passes():
    out = lint(os.path.join(FIXTURES, "safe_migration.sql"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 files, 0 findings" in out.stdout


def test_a_new_migration_is_linted_with_the_real_migrations(tmp_path):
    # What the test command runs, with one more migration in the folder: it fails naming that file alone.
    migrations = tmp_path / "migrations"
    shutil.copytree(os.path.join(ROOT, "server", "migrations"), migrations)
    shutil.copy(os.path.join(FIXTURES, "unsafe_migration.sql"), migrations / "0099_unsafe.sql")
    out = lint(*sorted(str(p) for p in migrations.glob("*.sql")))
    assert out.returncode == 1
    files = {m.group(1) for m in re.finditer(r"([0-9]{4}_\w+\.sql):\d+:\d+:", out.stdout)}
    assert files == {"0099_unsafe.sql"}, out.stdout


def exemptions_config(tmp_path, exemptions):
    text = open(os.path.join(ROOT, ".squawk.toml")).read()
    config = tmp_path / ".squawk.toml"
    config.write_text(text.split("[exemptions]")[0] + "[exemptions]\n" + exemptions)
    return config


def test_an_exemption_skips_only_its_rules_for_its_file(tmp_path):
    config = exemptions_config(tmp_path, '"unsafe_migration.sql" = { rules = ["ban-drop-column"], reason = "test" }\n')
    out = lint(os.path.join(FIXTURES, "unsafe_migration.sql"), config=config)
    assert out.returncode == 1
    rules = {rule for _, rule in reported(out)}
    assert "ban-drop-column" not in rules and "renaming-column" in rules, out.stdout


def test_an_exemption_needs_a_reason_a_file_and_a_finding(tmp_path):
    config = exemptions_config(tmp_path, (
        '"safe_migration.sql" = { rules = ["ban-drop-column"], reason = "no longer needed" }\n'
        '"0098_gone.sql" = { rules = ["ban-drop-table"], reason = "names no file" }\n'
        '"unsafe_migration.sql" = { rules = ["ban-drop-table"], reason = "" }\n'))
    out = lint(os.path.join(FIXTURES, "safe_migration.sql"), config=config)
    assert out.returncode == 1
    assert "safe_migration.sql: exempted from ban-drop-column, which it no longer breaks" in out.stdout
    assert "0098_gone.sql: exempted in .squawk.toml, but no such migration" in out.stdout
    assert "unsafe_migration.sql: an exemption needs rules and a reason" in out.stdout
