#!/usr/bin/env bash
# The watch lifecycle's stress test (tests/e2e/test_watch_stress.py) against one build of hotel-server:
#   scripts/watch-stress.sh release|asan|tsan [runs]   runs it `runs` times in a row (default 20, the issue 60 check)
# HOTEL_WATCH_STRESS_SECONDS bounds each run (default 10). The sanitizer builds stop at their first report, which
# fails the run with the server's backtrace (tests/e2e/crashes.py). Results go in docs/performance.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
flavour=${1:-}
runs=${2:-20}
case "$flavour" in
  release) server=$root/build/bin/hotel-server ;;
  asan | tsan)
    . scripts/sanitizers.sh
    sanitizer_build "$flavour" hotel-server
    sanitizer_env "$flavour"
    # A server's leaks at exit are the unit stage's business (LeakSanitizer there); here the test checks memory.
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    server=$root/build-$flavour/bin/hotel-server ;;
  *) echo "usage: scripts/watch-stress.sh release|asan|tsan [runs]" >&2; exit 2 ;;
esac
HOTEL_SERVER_BINARY=$server HOTEL_WATCH_STRESS_BUILD=$flavour HOTEL_WATCH_STRESS_RUNS=$runs \
  bash scripts/test.sh e2e tests/e2e/test_watch_stress.py
