#!/usr/bin/env bash
# The service benchmark in one command: builds the service (if needed) and the load generator,
# starts the project-local PostgreSQL, then runs tests/perf/service_bench.py (options pass through).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
bash scripts/install-deps.sh >/dev/null
[ -x build/bin/hotel-server ] && [ -x build/bin/hotel-gateway ] || bash scripts/build.sh
(cd tests/perf/loadgen && go build -o "$root/build/bin/loadgen" .)
exec python3 tests/perf/service_bench.py "$@"
