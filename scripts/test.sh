#!/usr/bin/env bash
# Builds everything and runs every test: C++ unit and integration tests (ctest), the gateway's
# Go tests, buf lint, and the end-to-end tests against the real server, gateway and PostgreSQL.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/postgres.sh start >/dev/null
export TEST_DATABASE_URL="postgresql://hotel@127.0.0.1:${HOTEL_PG_PORT:-54329}/postgres"

echo "== buf lint"
build/bin/buf lint
echo "== C++ unit and integration tests"
(cd build && ctest --output-on-failure -j 2)
echo "== gateway tests"
(cd gateway && go test ./...)
echo "== end-to-end and deployment tests"
python3 -m pytest -q -p no:cacheprovider tests/e2e tests/deploy "$@"
