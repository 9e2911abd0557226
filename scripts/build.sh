#!/usr/bin/env bash
# Builds into build/ and build/bin/:
#   scripts/build.sh run   what scripts/up.sh runs: hotel-server, hotel-images, hotel-admin, the gateway and grpcurl
#   scripts/build.sh all   everything (scripts/test.sh): that, the C++ test binaries, buf, grpc-health-probe, oasdiff,
#                          kustomize and the rollout test's balancer
set -euo pipefail
profile=${1:-all}
case "$profile" in run | all) ;; *) echo "usage: scripts/build.sh [run|all]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
# Go: the PATH's when new enough, else the one install-deps.sh put into .local/go (scripts/go-toolchain.sh).
. "$root/scripts/go-toolchain.sh"
use_go || { echo "build.sh: Go $go_wanted+ is needed: run scripts/install-deps.sh" >&2; exit 1; }
# ccache, when installed, lets worktrees and rebuilds reuse each other's objects (not needed in CI).
launcher=(); command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The C++ tests are configured in (HOTEL_TESTS) only by `all`; a tree configured by `run` is turned on later.
tests=OFF; [ "$profile" = run ] || tests=ON
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOTEL_TESTS=$tests "${launcher[@]}" >/dev/null
elif [ "$tests" = ON ] && ! grep -q '^HOTEL_TESTS:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -DHOTEL_TESTS=ON >/dev/null
fi
if [ "$profile" = run ]; then
  cmake --build "$build" -j "$(nproc)" --target hotel-server hotel-images hotel-admin
  bash "$root/scripts/build-gateway.sh" run
  exit 0
fi
cmake --build "$build" -j "$(nproc)"
bash "$root/scripts/build-gateway.sh" all
# kustomize, pinned in deploy/tools/go.mod, renders the manifests for their tests.
(cd "$root/deploy/tools" && GOFLAGS=-mod=mod go build -o "$root/build/bin/" sigs.k8s.io/kustomize/kustomize/v5)
# The rollout test's stand-in for a Kubernetes Service (standard library only).
(cd "$root/tests/e2e/balancer" && go build -o "$root/build/bin/test-balancer" .)
