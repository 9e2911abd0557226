#!/usr/bin/env bash
# MinIO, the S3 server that checks request signatures (tests/e2e/test_image_store_signatures.py: uploads
# stored through libcurl's SigV4 signing are accepted with the right secret and refused with a wrong one;
# moto's server accepts any signature). Built from the Go module proxy at a pinned version (MinIO tags
# no semantic versions, so the pin is the proxy's pseudo-version of a commit).
#   scripts/minio.sh build   builds it once (cached) and prints the binary's path
# Cached outside the work tree in $HOTEL_MINIO_CACHE (default ~/.cache/hotel-data-service/minio/<version>/minio),
# so worktrees and reruns reuse it. Several minutes on a loaded 2-core machine: scripts/test.sh starts it in
# the background at nice 10, like the trace backend, and the test waits for it (one build at a time: flock).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
minio_version=v0.0.0-20260212201848-7aac2a2c5b7c

build() {
  . "$root/scripts/go-toolchain.sh"
  use_go || { echo "minio.sh: Go $go_wanted+ is needed: run scripts/install-deps.sh" >&2; exit 1; }
  local cache=${HOTEL_MINIO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hotel-data-service/minio}
  minio_dir=$cache/$minio_version
  cached_go_binary minio.sh "$minio_dir/minio" install_minio
}

install_minio() {
  rm -rf "$minio_dir/bin"
  GOBIN=$minio_dir/bin GOFLAGS=-mod=mod nice -n 10 go install -trimpath "github.com/minio/minio@$minio_version"
  mv "$minio_dir/bin/minio" "$minio_dir/minio"
}

case "${1:-}" in
  build) build ;;
  *) echo "usage: scripts/minio.sh build" >&2; exit 2 ;;
esac
