#!/usr/bin/env bash
# The trace backend of the test run (tests/e2e/test_otlp_export.py): an OpenTelemetry Collector with an
# OTLP receiver and the file exporter (tests/tracebackend: main.go, and go.mod/go.sum pinning the collector's
# modules, fetched from the Go module proxy).
#   scripts/trace-backend.sh build   builds it once (cached) and prints the binary's path
# Cached by the hash of tests/tracebackend outside the work tree, in $HOTEL_TRACE_BACKEND_CACHE (default
# ~/.cache/hotel-data-service/trace-backend/<hash>/hotel-trace-backend), so worktrees and reruns reuse it.
# 136 s on a cold Go cache on a quiet 2-core machine, up to ~9 min on a loaded one (docs/decisions.md, "Exported
# traces"): scripts/test.sh starts it in the background at
# nice 10, like the previous release's server, and the test waits for it (one build at a time: flock).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source_dir=$root/tests/tracebackend

build() {
  . "$root/scripts/go-toolchain.sh"
  use_go || { echo "trace-backend.sh: Go $go_wanted+ is needed: run scripts/install-deps.sh" >&2; exit 1; }
  local hash cache
  hash=$(cat "$source_dir/go.mod" "$source_dir/go.sum" "$source_dir/main.go" | sha256sum | cut -c1-16)
  cache=${HOTEL_TRACE_BACKEND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hotel-data-service/trace-backend}
  backend=$cache/$hash/hotel-trace-backend
  cached_go_binary trace-backend.sh "$backend" build_backend
}

build_backend() {
  (cd "$source_dir" && nice -n 10 go build -trimpath -o "$backend.tmp" .)
  mv "$backend.tmp" "$backend"
}

case "${1:-}" in
  build) build ;;
  *) echo "usage: scripts/trace-backend.sh build" >&2; exit 2 ;;
esac
