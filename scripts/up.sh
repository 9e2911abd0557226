#!/usr/bin/env bash
# Brings up the whole service on this machine: installs what running needs (scripts/install-deps.sh run: no test
# tools), builds the binaries only (scripts/build.sh run: no test binaries), starts a
# project-local PostgreSQL (unless DATABASE_URL is set), then the server (which migrates and
# seeds) and the gateway, seeds generated room images into a local CDN origin (.local/cdn, served
# by the gateway under /cdn/), and prints their addresses. Stop with scripts/down.sh.
#   GRPC_LISTEN (default 127.0.0.1:50051), HTTP_LISTEN (default 127.0.0.1:8080),
#   GATEWAY_METRICS_LISTEN (default 127.0.0.1:9464: the gateway's GET /metrics), HOTEL_PG_PORT (default 54329)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=$root/.local/run
bash "$root/scripts/install-deps.sh" run
# What cannot work is said before the build: the local cluster's directory must be reachable by its OS user.
[ -n "${DATABASE_URL:-}" ] || bash "$root/scripts/postgres.sh" reachable
bash "$root/scripts/build.sh" run
bash "$root/scripts/down.sh" >/dev/null 2>&1 || true
# The server serves as the runtime role (DATABASE_URL) and migrates as the schema owner
# (MIGRATION_DATABASE_URL); with a DATABASE_URL of your own, set both or use one owning role.
if [ -z "${DATABASE_URL:-}" ]; then
  DATABASE_URL=$(bash "$root/scripts/postgres.sh" start)
  MIGRATION_DATABASE_URL=$(bash "$root/scripts/postgres.sh" url owner)
fi
export DATABASE_URL
[ -z "${MIGRATION_DATABASE_URL:-}" ] || export MIGRATION_DATABASE_URL
grpc=${GRPC_LISTEN:-127.0.0.1:50051}
http=${HTTP_LISTEN:-127.0.0.1:8080}
metrics=${GATEWAY_METRICS_LISTEN:-127.0.0.1:9464}
cdn_dir=$root/.local/cdn
export CDN_BASE_URL=${CDN_BASE_URL:-http://$http/cdn}
# One local instance behind no load balancer: nothing to wait for on SIGTERM (docs/operations.md).
export SHUTDOWN_DELAY=${SHUTDOWN_DELAY:-0s} GATEWAY_SHUTDOWN_DELAY=${GATEWAY_SHUTDOWN_DELAY:-0s}
mkdir -p "$run" "$cdn_dir"
# Another checkout's stack on the same ports is an error that says which port and how to choose another.
for setting in "GRPC_LISTEN=$grpc" "HTTP_LISTEN=$http"; do
  port=${setting##*:}
  if [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
    echo "up.sh: port $port is already in use (another checkout's stack?); choose another with ${setting%%=*}=127.0.0.1:<port>" >&2
    exit 1
  fi
done

nohup "$root/build/bin/hotel-server" --listen "$grpc" >"$run/server.out" 2>"$run/server.log" &
echo $! >"$run/server.pid"
nohup "$root/build/bin/hotel-gateway" --listen "$http" --metrics-listen "$metrics" --grpc-server "$grpc" --cdn-dir "$cdn_dir" >"$run/gateway.out" 2>"$run/gateway.log" &
echo $! >"$run/gateway.pid"

for _ in $(seq 1 60); do
  if curl -fsS "http://$http/api/v1/health/startup" >/dev/null 2>&1; then
    # Deterministic pictures: on a second run every image is already present.
    "$root/build/bin/hotel-images" seed --origin-dir "$cdn_dir" >"$run/images-seed.log" 2>&1 ||
      { echo "up.sh: seeding images failed; see $run/images-seed.log" >&2; exit 1; }
    cat <<EOM
Hotel Data Service is up.
  REST:    http://$http/api/v1   (e.g. curl http://$http/api/v1/rooms?property_id=BER1)
  OpenAPI: http://$http/api/v1/openapi.json   (to browse: http://$http/api/v1/docs)
  Metrics: http://$metrics/metrics
  Images:  http://$http/api/v1/room-types/BER1-STD/images   (files under $CDN_BASE_URL)
  gRPC:    $grpc               (e.g. build/bin/grpcurl -plaintext $grpc list)
  Logs:    .local/run/server.log, .local/run/gateway.log   Stop: scripts/down.sh
EOM
    exit 0
  fi
  sleep 0.5
done
echo "up.sh: the service did not become ready; see $run/server.log and $run/gateway.log" >&2
tail -n 20 "$run/server.log" "$run/gateway.log" >&2 || true
exit 1
