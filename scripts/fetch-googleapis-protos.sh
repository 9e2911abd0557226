#!/usr/bin/env bash
# Unpacks the .proto files of the PyPI package googleapis-common-protos (pinned version $1)
# into directory $2. Used by the CMake build for google/rpc/{status,error_details}.proto.
set -euo pipefail
version=$1 dest=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "googleapis-common-protos==${version}"
mkdir -p "$dest"
python3 - "$tmp" "$dest" <<'PY'
import glob, sys, zipfile
src, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(glob.glob(src + "/*.whl")[0]) as wheel:
    for name in wheel.namelist():
        if name.startswith("google/") and name.endswith(".proto"):
            wheel.extract(name, dest)
PY
