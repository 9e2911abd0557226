#!/usr/bin/env bash
# Builds everything and runs every test: buf lint, the versioning guard (docs/versioning.md), C++
# unit and integration tests (ctest; again under ASan+UBSan), the gateway's Go tests, the contract
# tests, the end-to-end tests against the real server, gateway and PostgreSQL (generated clients
# included), and the deployment manifest checks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/postgres.sh start >/dev/null
export TEST_DATABASE_URL="postgresql://hotel@127.0.0.1:${HOTEL_PG_PORT:-54329}/postgres"

echo "== buf lint"
build/bin/buf lint
echo "== versioning guard: buf breaking and oasdiff against the release baselines (api/baselines)"
bash scripts/check-contract.sh
echo "== C++ unit and integration tests"
(cd build && ctest --output-on-failure -j 2)
echo "== C++ unit and integration tests under AddressSanitizer and UndefinedBehaviorSanitizer"
[ -f build-sanitize/build.ninja ] ||
  cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHOTEL_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j "$(nproc)" --target hotel_unit_tests hotel_integration_tests
(cd build-sanitize && LSAN_OPTIONS="suppressions=$root/server/tests/lsan.supp" \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)
echo "== gateway tests"
(cd gateway && go test ./...)
echo "== end-to-end, contract and deployment tests"
python3 -m pytest -q -p no:cacheprovider tests/contract tests/e2e tests/deploy "$@"
