#!/usr/bin/env bash
# Builds everything and runs every test: the C++ style check, buf lint, the versioning guard (docs/versioning.md), C++
# unit and integration tests (ctest; again under ASan+UBSan), the gateway's Go tests, the contract
# tests, the end-to-end tests against the real server, gateway and PostgreSQL (generated clients
# included; traces exported to a real OpenTelemetry Collector, scripts/trace-backend.sh), and the deployment checks (manifests; alert rules with promtool).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
. scripts/go-toolchain.sh && use_go
bash scripts/build.sh
# The previous release's hotel-server for the previous-release check (tests/e2e/test_previous_release.py):
# built once per release and cached (scripts/previous-release.sh), at nice 10 while the checks below run.
previous_release_log=$(mktemp)
bash scripts/previous-release.sh build >"$previous_release_log" 2>&1 &
previous_release_build=$!
# The trace backend the tracing test exports to (an OpenTelemetry Collector, scripts/trace-backend.sh): built once
# per pinned version and cached, in the background too (136 s on a cold Go cache); the test waits for it.
trace_backend_log=$(mktemp)
bash scripts/trace-backend.sh build >"$trace_backend_log" 2>&1 &
trace_backend_build=$!
# MinIO, the S3 server that checks signatures (tests/e2e/test_image_store_signatures.py, scripts/minio.sh): the same.
minio_log=$(mktemp)
bash scripts/minio.sh build >"$minio_log" 2>&1 &
minio_build=$!
# The tests' own cluster, never the one scripts/up.sh serves from (.local/): .local/test-cluster, on
# HOTEL_PG_PORT when set, else on a port free now; stopped when the run ends.
export HOTEL_PG_DIR=$root/.local/test-cluster
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

echo "== C++ style (.clang-format; scripts/format.sh applies it)"
bash scripts/format.sh --check
echo "== buf lint"
build/bin/buf lint
echo "== versioning guard: buf breaking and oasdiff against the release baselines (api/baselines)"
bash scripts/check-contract.sh
echo "== migration lint: squawk over server/migrations (.squawk.toml; docs/operations.md, \"Schema changes\")"
bash scripts/lint-migrations.sh
echo "== C++ unit and integration tests"
(cd build && ctest --output-on-failure -j 2)
echo "== C++ unit and integration tests under AddressSanitizer and UndefinedBehaviorSanitizer"
[ -f build-sanitize/build.ninja ] ||
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHOTEL_SANITIZE=ON \
    $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) >/dev/null
cmake --build build-sanitize -j "$(nproc)" --target hotel_unit_tests hotel_integration_tests
(cd build-sanitize && LSAN_OPTIONS="suppressions=$root/server/tests/lsan.supp" \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)
echo "== go vet (gateway, OpenAPI converter, test balancer) and gateway tests"
for module in gateway tools/openapi tests/e2e/balancer; do (cd "$module" && go vet ./...); done
(cd gateway && go test ./...)
echo "== the previous release's server (scripts/previous-release.sh)"
# A failed build is reported here and again, with its cause, by the previous-release check.
wait "$previous_release_build" && tail -n 2 "$previous_release_log" || tail -n 40 "$previous_release_log"
echo "== the trace backend (scripts/trace-backend.sh)"
wait "$trace_backend_build" && tail -n 2 "$trace_backend_log" || tail -n 40 "$trace_backend_log"
echo "== MinIO (scripts/minio.sh)"
wait "$minio_build" && tail -n 2 "$minio_log" || tail -n 40 "$minio_log"
# The modules in a shuffled order (pytest-randomly; a module's tests in their written order: tests/e2e/conftest.py),
# so a module that needs another to run first fails here; the seed is printed and HOTEL_TEST_SEED=<seed> repeats it.
seed=${HOTEL_TEST_SEED:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}
echo "== end-to-end, contract and deployment tests, shuffled with seed $seed (HOTEL_TEST_SEED=$seed repeats the order)"
python3 -m pytest -q -p no:cacheprovider -p randomly --randomly-seed="$seed" tests/contract tests/e2e tests/deploy "$@"
