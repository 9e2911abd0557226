#!/usr/bin/env bash
# Cuts the contract baseline of a release, to be committed with it:
#   api/baselines/<version>/buf-image.json  the protos (buf image, no source info), for buf breaking
#   api/baselines/<version>/openapi.json    the published OpenAPI document, for oasdiff
# Usage: scripts/cut-baseline.sh <version>   (after scripts/build.sh; see docs/versioning.md)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${1:?usage: cut-baseline.sh <version>}
declared=$(sed -n 's/^project(hotel_data_service VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ "$version" = "$declared" ] || { echo "cut-baseline.sh: CMakeLists.txt declares $declared, not $version" >&2; exit 1; }
dir=$root/api/baselines/$version
[ ! -e "$dir" ] || { echo "cut-baseline.sh: $dir exists; a release baseline is never rewritten" >&2; exit 1; }
mkdir -p "$dir"
cd "$root"
build/bin/buf build --exclude-source-info -o "$dir/buf-image.binpb.json#format=json"
python3 -m json.tool --indent 1 "$dir/buf-image.binpb.json" >"$dir/buf-image.json" && rm "$dir/buf-image.binpb.json"
cp gateway/gen/openapi/openapi.json "$dir/openapi.json"
echo "baseline $version: $dir"
