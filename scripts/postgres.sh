#!/usr/bin/env bash
# A project-local PostgreSQL cluster for development and tests, in .local/ (never the system one).
#   scripts/postgres.sh start           initialise if needed, start, create role and database "hotel"
#   scripts/postgres.sh stop [MODE]     stop (MODE: fast | immediate; default fast)
#   scripts/postgres.sh status | url
# Port: HOTEL_PG_PORT (default 54329); directory: HOTEL_PG_DIR (default .local). Idempotent.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${HOTEL_PG_PORT:-54329}
dir=${HOTEL_PG_DIR:-$root/.local}
data=$dir/pgdata
run=$dir/pgrun
log=$dir/postgres.log
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] || { echo "postgres.sh: PostgreSQL server not installed (run scripts/install-deps.sh)" >&2; exit 1; }

# initdb and postgres refuse to run as root: run them as the postgres system user then.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() { echo "postgresql://hotel@127.0.0.1:${port}/hotel"; }

start() {
  mkdir -p "$dir"
  if [ ! -s "$data/PG_VERSION" ]; then
    mkdir -p "$data" "$run"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$data" "$run"
    chmod 700 "$data"
    as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  fi
  mkdir -p "$run"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$run"
  touch "$log"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$log"
  if ! as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 \
      -o "-p $port -k $run -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=${HOTEL_PG_FSYNC:-on}" start >/dev/null
  fi
  local psql=(psql -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt)
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = 'hotel'")" != 1 ]; then
    "${psql[@]}" -d postgres -c "CREATE ROLE hotel LOGIN CREATEDB"
  fi
  if [ "$("${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'hotel'")" != 1 ]; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE hotel OWNER hotel"
  fi
}

stop() {
  [ -s "$data/PG_VERSION" ] || return 0
  if as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bindir/pg_ctl" -D "$data" -m "${1:-fast}" -w stop >/dev/null
  fi
}

case "${1:-}" in
  start) start; url ;;
  stop) stop "${2:-fast}" ;;
  status) as_owner "$bindir/pg_ctl" -D "$data" status ;;
  url) url ;;
  *) echo "usage: $0 start | stop [fast|immediate] | status | url" >&2; exit 2 ;;
esac
