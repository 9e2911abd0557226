#!/usr/bin/env bash
# The benchmarks in one command, on the project's Python environment (.local/venv, as the tests: Debian's python3
# has none of gRPC's packages). Builds the service (if needed) and the load generator, starts nothing itself, then
# runs tests/perf/service_bench.py, or the benchmark named first; options pass through:
#   bash tests/perf/run.sh [--seconds 5 ...]
#   bash tests/perf/run.sh changes_bench.py [options]
# The benchmark runs in a process group of its own, with every server, gateway and load generator it starts; the
# group is stopped when this script ends, however it ends (a failed run, Ctrl-C, a kill), so a failed run leaves
# nothing running. The project-local PostgreSQL (scripts/postgres.sh, a session of its own) stays up.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
bash scripts/install-deps.sh test >/dev/null
. scripts/go-toolchain.sh && use_go
[ -x build/bin/hotel-server ] && [ -x build/bin/hotel-gateway ] || bash scripts/build.sh
(cd tests/perf/loadgen && go build -o "$root/build/bin/loadgen" .)
bench=service_bench.py
case "${1:-}" in *.py) bench=$(basename "$1") && shift ;; esac
[ -f "tests/perf/$bench" ] || { echo "run.sh: no benchmark tests/perf/$bench" >&2; exit 2; }

set -m # job control: the benchmark's job is a process group of its own, whose id is its pid
# An open loop at thousands of requests a second holds a connection per waiting call: as many descriptors as
# this machine allows (root may raise its own limit), so the generator does not run out before the service.
ulimit -n "$(cat /proc/sys/fs/nr_open)" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
.local/venv/bin/python "tests/perf/$bench" "$@" &
group=$!
trap 'kill -TERM -- "-$group" 2>/dev/null || true' EXIT
wait "$group"
