#!/usr/bin/env bash
# Stops what scripts/up.sh started (gateway, server; PostgreSQL too with --all).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=$root/.local/run
for name in gateway server; do
  if [ -f "$run/$name.pid" ]; then
    pid=$(cat "$run/$name.pid")
    if kill "$pid" 2>/dev/null; then
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$run/$name.pid"
  fi
done
if [ "${1:-}" = --all ]; then bash "$root/scripts/postgres.sh" stop; fi
