#!/usr/bin/env bash
# Builds the C++ server and tests (build/) and the Go gateway and tools (build/bin/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
# Go: the PATH's when new enough, else the one install-deps.sh put into .local/go (scripts/go-toolchain.sh).
. "$root/scripts/go-toolchain.sh"
use_go || { echo "build.sh: Go $go_wanted+ is needed: run scripts/install-deps.sh" >&2; exit 1; }
# ccache, when installed, lets worktrees and rebuilds reuse each other's objects (not needed in CI).
launcher=(); command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
bash "$root/scripts/build-gateway.sh"
# kustomize, pinned in deploy/tools/go.mod, renders the manifests for their tests.
(cd "$root/deploy/tools" && GOFLAGS=-mod=mod go build -o "$root/build/bin/" sigs.k8s.io/kustomize/kustomize/v5)
# The rollout test's stand-in for a Kubernetes Service (standard library only).
(cd "$root/tests/e2e/balancer" && go build -o "$root/build/bin/test-balancer" .)
