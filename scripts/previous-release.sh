#!/usr/bin/env bash
# The previous release's server, for the previous-release check (docs/operations.md, "Schema changes"):
#   scripts/previous-release.sh info    prints "<version> <commit>" of the previous release
#   scripts/previous-release.sh build   builds its hotel-server once (cached) and prints the binary's path
# "The previous release" is the newest one in api/releases.txt: the release production runs while
# this tree's migrations are applied (HOTEL_PREVIOUS_RELEASE=<version> names another). On the release
# commit itself that is the release's own server.
# The build is the release commit's tree (git archive: the commit must be in the clone), configured
# like scripts/build.sh (RelWithDebInfo, Ninja), hotel-server only, at nice 10. It is cached by commit
# outside the work tree, in $HOTEL_PREVIOUS_RELEASE_CACHE (default ~/.cache/hotel-data-service/
# previous-release/<commit>/hotel-server, the binary alone), so a fresh clone on the same machine and
# every worktree reuse it; a cached binary whose shared libraries are gone (a system upgrade) is rebuilt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
releases=$root/api/releases.txt

release() {
  local line
  if [ -n "${HOTEL_PREVIOUS_RELEASE:-}" ]; then
    line=$(grep -v '^#' "$releases" | awk -v v="$HOTEL_PREVIOUS_RELEASE" '$1 == v' | tail -n 1)
  else
    line=$(grep -v '^#' "$releases" | awk 'NF == 2' | sort -V -k1,1 | tail -n 1)
  fi
  [ -n "$line" ] || { echo "previous-release.sh: no release ${HOTEL_PREVIOUS_RELEASE:-} in $releases" >&2; exit 1; }
  echo "$line"
}

build() {
  local version commit cache dir
  read -r version commit < <(release)
  if ! git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
    cat >&2 <<EOF
previous-release.sh: commit $commit of release $version is not in this clone (a shallow clone?).
Fetch it, then run again:  git fetch --unshallow   (or: git fetch origin tag v$version)
EOF
    exit 1
  fi
  cache=${HOTEL_PREVIOUS_RELEASE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hotel-data-service/previous-release}
  dir=$cache/$commit
  local binary=$dir/hotel-server
  mkdir -p "$dir"
  exec 9>"$dir.lock"
  flock 9  # one build at a time (the test command starts it early; a test may ask for it too)
  if [ -f "$dir/complete" ] && [ -x "$binary" ] && ! ldd "$binary" | grep -q 'not found'; then
    echo "$binary"
    return
  fi
  rm -f "$dir/complete"
  if [ ! -d "$dir/src" ]; then
    rm -rf "$dir/src.tmp" && mkdir -p "$dir/src.tmp"
    git -C "$root" archive "$commit" | tar -x -C "$dir/src.tmp"
    mv "$dir/src.tmp" "$dir/src"
  fi
  local start=$SECONDS
  echo "previous-release.sh: building hotel-server $version ($commit) in $dir" >&2
  [ -f "$dir/build/build.ninja" ] ||
    nice -n 10 cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
  nice -n 10 cmake --build "$dir/build" -j "$(nproc)" --target hotel-server >&2
  echo "previous-release.sh: built hotel-server $version in $((SECONDS - start)) s" >&2
  # Only the binary is kept (the sources and objects are ~400 MB).
  mv "$dir/build/bin/hotel-server" "$binary"
  rm -rf "$dir/build" "$dir/src"
  touch "$dir/complete"
  echo "$binary"
}

case "${1:-}" in
  info) release ;;
  build) build ;;
  *) echo "usage: previous-release.sh info | build" >&2; exit 2 ;;
esac
