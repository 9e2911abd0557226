#!/usr/bin/env bash
# The README's first command on a bare Debian, as a new user meets it: makes a fresh bookworm root with debootstrap
# (the default set plus git, curl, ca-certificates, sudo and python3, as a cloud image has them), clones a commit of
# this repository as root into /root/hotel in it, and in a chroot runs scripts/up.sh under `time`, asks the API for
# a room (200), runs up.sh a second time, and prints the figures: wall time, apt's, Go's, the C++ build's and the
# CPU-minutes. Then it stops what it started in the root and unmounts. Run by hand, as root, on a quiet machine,
# before each release; the figures go in docs/performance.md ("The first command on a bare Debian").
#   scripts/bare-root-check.sh [--no-up] [commit] [dir]
#     commit   what to clone (default HEAD; committed work only)
#     dir      where to make the root: a new or empty directory, kept afterwards (default: a temporary one, removed)
#     --no-up  make the root, clone and mount, then tear down: checks this script's own part without the build
# The chroot shares this machine's network: up.sh and PostgreSQL get ports free now (printed). Services that
# Debian's packages would start (PostgreSQL's own cluster) are held back by policy-rc.d, as no systemd runs in a
# chroot; up.sh starts its own cluster either way.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
up=1
[ "${1:-}" != --no-up ] || { up=; shift; }
[ "$(id -u)" = 0 ] || { echo "bare-root-check.sh: run as root (debootstrap, mount, chroot)" >&2; exit 1; }
commit=$(git -C "$root" rev-parse --verify "${1:-HEAD}^{commit}")
if [ -n "${2:-}" ]; then
  dir=$(mkdir -p "$2" && cd "$2" && pwd) keep=1
  [ -z "$(ls -A "$dir")" ] || { echo "bare-root-check.sh: $dir is not empty; a fresh root needs an empty directory" >&2; exit 1; }
else
  dir=$(mktemp -d /var/tmp/hotel-bare-root.XXXXXX) keep=
  chmod 755 "$dir" # a root directory as a real one is: every user passes through it
fi
logs=$(mktemp -d /tmp/hotel-bare-root-logs.XXXXXX)
ports=()
in_root() { chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

mounted() { awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts; }
teardown() {
  set +e
  if [ -x "$dir/root/hotel/scripts/down.sh" ] && [ -d "$dir/proc/self" ]; then
    in_root env "${ports[@]}" bash /root/hotel/scripts/down.sh --all >/dev/null 2>&1
  fi
  # Whatever still runs with its root in the chroot was started there by this check.
  local proc
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$dir" ] && kill -KILL "${proc#/proc/}" 2>/dev/null
  done
  local mount
  for mount in $(mounted | sort -r); do umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null; done
  if [ -n "$(mounted)" ]; then
    echo "bare-root-check.sh: still mounted under $dir, left in place:" >&2; mounted >&2
  elif [ -z "$keep" ]; then
    rm -rf --one-file-system "$dir"
  fi
  echo "logs: $logs${keep:+; the root: $dir}"
}
trap teardown EXIT

command -v debootstrap >/dev/null ||
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
echo "== debootstrap bookworm into $dir"
start=$SECONDS
debootstrap --include=git,curl,ca-certificates,sudo,python3 bookworm "$dir" http://deb.debian.org/debian \
  >"$logs/debootstrap.log" 2>&1 || { tail -n 20 "$logs/debootstrap.log" >&2; exit 1; }
echo "debootstrap: $((SECONDS - start)) s, $(du -sm --one-file-system "$dir" | cut -f1) MB"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# The root shares this machine's network: where that goes through a TLS-inspecting proxy, its certificate
# authorities (the ones this machine added to its own trust) are trusted in the root too.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
  in_root update-ca-certificates >/dev/null
fi
printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" && chmod 755 "$dir/usr/sbin/policy-rc.d"
mount -t proc proc "$dir/proc"
mount -t sysfs sysfs "$dir/sys"
mount --rbind /dev "$dir/dev" && mount --make-rslave "$dir/dev"
git clone --quiet --no-hardlinks --no-checkout "$root" "$dir/root/hotel"
git -C "$dir/root/hotel" checkout --quiet --detach "$commit"
echo "cloned $commit into $dir/root/hotel (/root: mode $(stat -c %a "$dir/root"))"
[ -n "$up" ] || exit 0

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ports=(GRPC_LISTEN=127.0.0.1:$(free_port) HTTP_LISTEN=127.0.0.1:$(free_port)
  GATEWAY_METRICS_LISTEN=127.0.0.1:$(free_port) HOTEL_PG_PORT=$(free_port))
http=${ports[1]#HTTP_LISTEN=}
echo "ports: ${ports[*]}"
TIMEFORMAT='%R %U %S'
run_up() { # $1: the run's name; its log and its "wall user sys" seconds go to $logs/$1.log and $logs/$1.time
  local log=$logs/$1.log
  echo "== scripts/up.sh ($1), log $log"
  { time in_root bash -c 'cd /root/hotel && exec env "$@" bash scripts/up.sh' up "${ports[@]}" >"$log" 2>&1; } \
    2>"$logs/$1.time" || { tail -n 30 "$log" >&2; echo "bare-root-check.sh: scripts/up.sh failed ($1)" >&2; exit 1; }
}
ask_for_a_room() {
  local status
  status=$(in_root curl -sS -o /dev/null -w '%{http_code}' "http://$http/api/v1/rooms?property_id=BER1&page_size=1")
  echo "GET /api/v1/rooms?property_id=BER1&page_size=1: $status"
  [ "$status" = 200 ] || exit 1
}
run_up first
read -r wall user sys <"$logs/first.time"
ask_for_a_room
# The C++ build's span and the sum of its jobs' times (about its CPU time on an otherwise idle machine).
read -r cxx_wall cxx_jobs < <(awk -F'\t' '!/^#/ { if (min == "" || $1 < min) min = $1; if ($2 > max) max = $2
  sum += $2 - $1 } END { printf "%.0f %.1f\n", (max - min) / 1000, sum / 60000 }' "$dir/root/hotel/build/.ninja_log")
run_up second
read -r wall2 _ <"$logs/second.time"
ask_for_a_room

echo "== figures (commit $commit, $(nproc) cores)"
echo "first run:  $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", (u + s) / 60 }') CPU-minutes"
grep -h "took" "$logs/first.log" | sed 's/^/  /' || true
echo "  C++ build: $cxx_wall s wall, $cxx_jobs job-minutes (build/.ninja_log)"
echo "second run: $wall2 s wall"
