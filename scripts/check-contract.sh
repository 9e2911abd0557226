#!/usr/bin/env bash
# The versioning guard (docs/versioning.md): the protos and the published OpenAPI document must not
# break any release baseline of the current major version (api/baselines/<version>/).
#   buf breaking  proto/ against buf-image.json (rules: buf.yaml, FILE)
#   oasdiff       gateway/gen/openapi/openapi.json against openapi.json (breaking changes at level ERR)
#   enum-changes  every enum value added to a response since the release (listed; allowed: response
#                 enums are open) and any removed (breaking)
# Optional arguments: the proto directory and the OpenAPI document to check (the tests use them to
# prove the guard fails on a breaking change). Needs scripts/build.sh first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
protos=${1:-$root}
document=${2:-$root/gateway/gen/openapi/openapi.json}
major=$(sed -n 's/^project(hotel_data_service VERSION \([0-9]*\)\..*/\1/p' "$root/CMakeLists.txt")
status=0 checked=0
for baseline in "$root"/api/baselines/"$major".*/; do
  [ -d "$baseline" ] || continue
  version=$(basename "$baseline")
  checked=$((checked + 1))
  if ! (cd "$protos" && "$root/build/bin/buf" breaking --against "$baseline/buf-image.json"); then
    echo "check-contract: the protos break release $version (buf breaking)" >&2
    status=1
  fi
  # api/oasdiff-levels.txt: a response enum declared open (docs/versioning.md, "Enums") is not a
  # break; the values it loses are (enum-changes.py below).
  if ! "$root/build/bin/oasdiff" breaking "$baseline/openapi.json" "$document" --fail-on ERR \
    --severity-levels "$root/api/oasdiff-levels.txt"; then
    echo "check-contract: the REST API breaks release $version (oasdiff)" >&2
    status=1
  fi
  if ! python3 "$root/scripts/enum-changes.py" "$baseline/openapi.json" "$document" "$version"; then
    echo "check-contract: a response enum lost a value of release $version" >&2
    status=1
  fi
done
[ "$checked" -gt 0 ] || { echo "check-contract: no baseline of major version $major in api/baselines" >&2; exit 1; }
[ "$status" = 0 ] && echo "check-contract: no breaking change against $checked baseline(s) of v$major"
exit "$status"
