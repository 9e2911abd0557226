#!/usr/bin/env bash
# Lints the schema migrations with squawk (pinned in scripts/install-deps.sh) and the rules of
# .squawk.toml; existing migrations exempted there by name ([exemptions]: rules and a reason) skip
# just those rules. Fails on any finding, on an exemption without a reason, naming no file or no
# longer needed (its rule is not reported for its file any more).
#   scripts/lint-migrations.sh [FILE.sql ...]     default: server/migrations/*.sql
# SQUAWK_CONFIG names another config (the tests use it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=${SQUAWK_CONFIG:-$root/.squawk.toml}
command -v squawk >/dev/null || { echo "lint-migrations.sh: squawk missing (run scripts/install-deps.sh)" >&2; exit 1; }
[ $# -gt 0 ] || set -- "$root"/server/migrations/*.sql
exec python3 - "$config" "$@" <<'PY'
import json, os, subprocess, sys, tomllib

config_path, files = sys.argv[1], sys.argv[2:]
with open(config_path, "rb") as f:
    config = tomllib.load(f)
excluded = list(config.get("excluded_rules", []))
exemptions = config.get("exemptions", {})
names = {os.path.basename(p) for p in files}
problems = []


def squawk(path, exclude):
    args = ["squawk", "--config", config_path, "--reporter", "json", path]
    if exclude:
        # Rules given on the command line replace the config's: pass both.
        args.insert(1, "--exclude=" + ",".join(exclude))
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip().startswith("["):
        sys.exit(f"lint-migrations.sh: squawk failed on {path}: {out.stderr.strip() or out.stdout.strip()}")
    return json.loads(out.stdout)


for name, exemption in sorted(exemptions.items()):
    if not str(exemption.get("reason", "")).strip() or not exemption.get("rules"):
        problems.append(f"{name}: an exemption needs rules and a reason")
    if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(config_path)), "server", "migrations", name)) \
            and name not in names:
        problems.append(f"{name}: exempted in {os.path.basename(config_path)}, but no such migration")

findings = 0
for path in files:
    name = os.path.basename(path)
    exempt = list(exemptions.get(name, {}).get("rules", []))
    if exempt:
        reported = {v["rule_name"] for v in squawk(path, excluded)}
        for rule in exempt:
            if rule not in reported:
                problems.append(f"{name}: exempted from {rule}, which it no longer breaks: remove the exemption")
    for v in squawk(path, excluded + exempt):
        findings += 1
        print(f"{os.path.relpath(path)}:{v['line'] + 1}:{v['column'] + 1}: {v['rule_name']}: {v['message']}")
        if v.get("help"):
            print(f"    help: {v['help']}")
for p in problems:
    print("lint-migrations.sh: " + p)
print(f"migration lint: {len(files)} files, {findings} findings, {len(problems)} configuration problems")
sys.exit(1 if findings or problems else 0)
PY
