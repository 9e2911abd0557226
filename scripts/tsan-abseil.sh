#!/usr/bin/env bash
# Debian's Abseil synchronisation library, rebuilt with ThreadSanitizer, for the ThreadSanitizer builds
# (scripts/sanitizers.sh):
#   scripts/tsan-abseil.sh build   builds it once (cached) and prints the directory holding it
# Why: ThreadSanitizer sees only the synchronisation of code it instruments. Every absl::Mutex (ours, and gRPC's,
# whose grpc_core::Mutex is one) lives in libabsl_synchronization, which Debian builds without it, so a TSan build of
# our code alone reports every hand-over through a mutex as a race. The TSan binaries load this one library in
# place of Debian's (an RPATH: CMakeLists.txt, HOTEL_TSAN): the same source package and version, its Debian patches applied, the same
# soname and headers, so they link against Debian's and run against this one. The rest of Abseil stays Debian's,
# uninstrumented like gRPC, whose own lock-free hand-overs TSan cannot see: the builds run with
# ignore_noninstrumented_modules, so what those libraries do among themselves is not checked, and our code is.
# Pinned: the source package of the libabsl20220623 that install-deps.sh installs, checked by SHA-256. Cached in
# $HOTEL_TSAN_ABSEIL_CACHE (default ~/.cache/hotel-data-service/tsan-abseil/<version>), shared by clones and worktrees.
set -euo pipefail
version=20220623.1-1+deb12u2
pool=http://deb.debian.org/debian/pool/main/a/abseil
files=(
  "abseil_20220623.1.orig.tar.gz abfe2897f3a30edaa74bc34365afe3c2a3cd012091a97dc7e008f7016adcd5fe"
  "abseil_$version.debian.tar.xz e08490fc7b6f3beca1925953b0c4fb92df2de5e2a01295e4641e2a3d4e528eeb"
  "abseil_$version.dsc -"
)

build() {
  local cache dir name sum
  cache=${HOTEL_TSAN_ABSEIL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hotel-data-service/tsan-abseil}
  dir=$cache/$version
  mkdir -p "$dir"
  exec 9>"$dir.lock"
  flock 9
  if [ -f "$dir/complete" ]; then
    echo "$dir/lib"
    return
  fi
  local installed
  installed=$(dpkg-query -W -f='${Version}' libabsl20220623 2>/dev/null || true)
  [ "$installed" = "$version" ] ||
    echo "tsan-abseil.sh: warning: Debian's libabsl20220623 is ${installed:-not installed}, this builds $version" >&2
  local start=$SECONDS work=$dir/work
  rm -rf "$work" && mkdir -p "$work"
  for entry in "${files[@]}"; do
    read -r name sum <<<"$entry"
    curl -fsS --retry 3 -o "$work/$name" "$pool/$name"
    [ "$sum" = - ] || echo "$sum  $work/$name" | sha256sum -c --quiet -
  done
  # The .dsc's own checksums cover what it unpacks; its signature is not checked (no keyring), the pins above are.
  (cd "$work" && dpkg-source --no-check -x "abseil_$version.dsc" src >/dev/null)
  echo "tsan-abseil.sh: building Abseil $version with ThreadSanitizer in $dir" >&2
  nice -n 10 cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null 2>&1
  nice -n 10 cmake --build "$work/build" -j "$(nproc)" --target synchronization >/dev/null
  mkdir -p "$dir/lib"
  cp -a "$work/build/absl/synchronization/"libabsl_synchronization.so* "$dir/lib/"
  rm -rf "$work"
  touch "$dir/complete"
  echo "tsan-abseil.sh: built in $((SECONDS - start)) s" >&2
  echo "$dir/lib"
}

case "${1:-}" in
  build) build ;;
  *) echo "usage: scripts/tsan-abseil.sh build" >&2; exit 2 ;;
esac
