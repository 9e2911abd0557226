#!/usr/bin/env bash
# Runs the tests, by stage; each stage installs and builds only what it needs:
#   scripts/test.sh [all]                   every stage below, in this order (what CI runs: .ci/run)
#   scripts/test.sh static                  C++ style, buf lint, the versioning guard (docs/versioning.md), the
#                                           migration linter, go vet
#   scripts/test.sh unit                    C++ unit and integration tests (ctest), again under ASan and UBSan, and
#                                           under TSan (scripts/sanitizers.sh)
#   scripts/test.sh gateway                 the gateway's Go tests, then each fuzz test briefly (HOTEL_FUZZ_TIME, 3000 inputs)
#   scripts/test.sh e2e [pytest args...]    the contract, end-to-end and deployment tests (pytest) against the real
#                                           server, gateway and PostgreSQL, shuffled test by test
# `all` passes its pytest arguments on too. The tests run on a PostgreSQL cluster of their own (.local/test-cluster,
# on HOTEL_PG_PORT or a port free now; stopped at the end), so beside a running scripts/up.sh too; their Python is the
# project's environment .local/venv, whatever python3 comes first on the PATH.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
stage=${1:-all}
[ $# -eq 0 ] || shift
case "$stage" in
  all | static | unit | gateway | e2e) ;;
  *) echo "usage: scripts/test.sh [all|static|unit|gateway|e2e [pytest args...]]" >&2; exit 2 ;;
esac
[ "$stage" = all ] || [ "$stage" = e2e ] || [ $# -eq 0 ] || { echo "test.sh: only all and e2e take pytest arguments" >&2; exit 2; }

bash scripts/install-deps.sh test
. scripts/go-toolchain.sh && use_go
export PATH="$root/.local/venv/bin:$PATH"

# The builds the end-to-end tests need besides the project's own, each cached across runs and worktrees and
# started in the background so they overlap the other stages: the previous release's hotel-server
# (tests/e2e/test_previous_release.py, scripts/previous-release.sh), the trace backend (an OpenTelemetry Collector,
# scripts/trace-backend.sh) and MinIO (the S3 server that checks signatures, scripts/minio.sh). The tests wait for them.
background_builds=()
start_background_builds() {
  local name log
  for name in previous-release trace-backend minio; do
    log=$(mktemp)
    bash "scripts/$name.sh" build >"$log" 2>&1 &
    background_builds+=("$name:$!:$log")
  done
}
wait_background_builds() {
  local entry name pid log
  for entry in "${background_builds[@]}"; do
    IFS=: read -r name pid log <<<"$entry"
    echo "== $name (scripts/$name.sh)"
    # A failed build is reported here and again, with its cause, by the test that needs it.
    if wait "$pid"; then tail -n 2 "$log"; else tail -n 40 "$log"; fi
  done
  background_builds=()
}

cluster_started=
start_test_cluster() {
  [ -z "$cluster_started" ] || return 0
  export HOTEL_PG_DIR=$root/.local/test-cluster
  local running_port
  running_port=$(bash scripts/postgres.sh port)
  [ -z "${HOTEL_PG_PORT:-}" ] || [ "$running_port" = "$HOTEL_PG_PORT" ] || bash scripts/postgres.sh stop
  export HOTEL_PG_PORT=${HOTEL_PG_PORT:-$running_port}
  echo "== test cluster: $HOTEL_PG_DIR, port $HOTEL_PG_PORT"
  trap 'bash scripts/postgres.sh stop' EXIT
  bash scripts/postgres.sh start >/dev/null
  # The integration tests run their code as the runtime role, migrate as the owner and create their
  # database as the superuser, like a deployment (docs/operations.md, "Database roles").
  TEST_DATABASE_URL=$(bash scripts/postgres.sh url runtime postgres)
  TEST_DATABASE_OWNER_URL=$(bash scripts/postgres.sh url owner postgres)
  TEST_DATABASE_ADMIN_URL=$(bash scripts/postgres.sh url admin postgres)
  export TEST_DATABASE_URL TEST_DATABASE_OWNER_URL TEST_DATABASE_ADMIN_URL
  cluster_started=1
}

run_static() {
  bash scripts/build-gateway.sh all
  echo "== C++ style (.clang-format; scripts/format.sh applies it)"
  bash scripts/format.sh --check
  echo "== buf lint"
  build/bin/buf lint
  echo "== versioning guard: buf breaking and oasdiff against the release baselines (api/baselines)"
  bash scripts/check-contract.sh
  echo "== migration lint: squawk over server/migrations (.squawk.toml; docs/operations.md, \"Schema changes\")"
  bash scripts/lint-migrations.sh
  echo "== go vet (gateway, OpenAPI converter, test balancer)"
  for module in gateway tools/openapi tests/e2e/balancer; do (cd "$module" && go vet ./...); done
}

run_unit() {
  bash scripts/build.sh all
  start_test_cluster
  echo "== C++ unit and integration tests"
  (cd build && ctest --output-on-failure -j 2)
  . scripts/sanitizers.sh
  echo "== C++ unit and integration tests under AddressSanitizer and UndefinedBehaviorSanitizer"
  sanitizer_build asan hotel_unit_tests hotel_integration_tests
  (sanitizer_env asan && cd build-asan && ctest --output-on-failure -j 2)
  echo "== C++ unit and integration tests under ThreadSanitizer"
  sanitizer_build tsan hotel_unit_tests hotel_integration_tests
  (sanitizer_env tsan && cd build-tsan && ctest --output-on-failure -j 2)
}

run_gateway() {
  bash scripts/build-gateway.sh all
  echo "== gateway tests (go test; the fuzz tests run their seed corpora)"
  (cd gateway && go test ./...)
  # Then each fuzz test explores briefly: the request parsing the gateway does itself (a failing input is kept
  # under the package's testdata/fuzz and replays in every later go test). By a count of inputs, not a time: a
  # time limit can end a starved worker mid-input and fail the run with nothing found (golang/go#51484).
  echo "== gateway fuzz tests, ${HOTEL_FUZZ_TIME:-3000x} each"
  local package target log
  log=$(mktemp)
  for package in $(cd gateway && go list ./internal/...); do
    for target in $(cd gateway && go test -list '^Fuzz' "$package" | grep '^Fuzz' || true); do
      (cd gateway && go test -run '^$' -fuzz "^$target\$" -fuzztime "${HOTEL_FUZZ_TIME:-3000x}" "$package" >"$log" 2>&1) ||
        { tail -n 40 "$log" >&2
          echo "fuzz test $target ($package) failed: go test -run '^$' -fuzz '^$target\$' $package" >&2; return 1; }
    done
  done
}

run_e2e() {
  bash scripts/build.sh all
  [ ${#background_builds[@]} -gt 0 ] || start_background_builds
  start_test_cluster
  wait_background_builds
  # Shuffled test by test (pytest-randomly); the seed is printed and HOTEL_TEST_SEED=<seed> repeats the order.
  local seed=${HOTEL_TEST_SEED:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}
  echo "== end-to-end, contract and deployment tests, shuffled with seed $seed (HOTEL_TEST_SEED=$seed repeats the order)"
  local targets=(tests/contract tests/e2e tests/deploy)
  # Arguments that name tests replace the default set; options alone keep it.
  local arg
  for arg in "$@"; do [[ "$arg" == tests/* ]] && { targets=(); break; }; done
  python -m pytest -q -p no:cacheprovider -p randomly --randomly-seed="$seed" "${targets[@]}" "$@"
}

case "$stage" in
  all)
    bash scripts/build.sh all
    start_background_builds
    run_static
    run_unit
    run_gateway
    run_e2e "$@"
    ;;
  static) run_static ;;
  unit) run_unit ;;
  gateway) run_gateway ;;
  e2e) run_e2e "$@" ;;
esac
