#!/usr/bin/env bash
# A primary with streaming standbys on this machine, for the failover drill (docs/operations.md,
# "Failover") and the tests: the same replication settings as production (quorum synchronous
# replication, deploy/k8s/overlays/production/postgres-cluster.yaml).
#   scripts/replicas.sh start [N]      node0 (scripts/postgres.sh's cluster in DIR, port P) and N standbys
#                                      (default 2): node K in DIR/node<K>, port P+K, cloned from the primary
#                                      by pg_basebackup on first start. Idempotent.
#   scripts/replicas.sh stop [MODE]    every node (MODE: fast | immediate)
#   scripts/replicas.sh status         one line per node: name, port, primary | standby | down
#   scripts/replicas.sh kill K         SIGKILL node K's postmaster (a primary's death, for the drill)
#   scripts/replicas.sh promote K      promote standby K; the other standbys follow it
#   scripts/replicas.sh rejoin K       node K (an old primary, say) becomes a standby of the current primary:
#                                      pg_rewind, else a fresh base backup
#   scripts/replicas.sh delay K DUR    standby K applies WAL DUR late (recovery_min_apply_delay; 0 to stop)
#   scripts/replicas.sh url [ROLE] [DB]      libpq multi-host URL over every node, target_session_attrs=read-write
#   scripts/replicas.sh read-url [ROLE] [DB] the same, target_session_attrs=prefer-standby (DATABASE_READ_URL)
# HOTEL_PG_SYNC=off makes replication asynchronous (what the drill shows losing); the default is
# synchronous_standby_names = 'ANY 1 (node0, node1, …)': a commit returns once one standby has it.
# The choice sticks (DIR/replication/mode) until given again. Port: HOTEL_PG_PORT (default 54329);
# directory: HOTEL_PG_DIR (default .local), as for scripts/postgres.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${HOTEL_PG_PORT:-54329}
dir=${HOTEL_PG_DIR:-$root/.local}
state=$dir/replication
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] || { echo "replicas.sh: PostgreSQL server not installed (run scripts/install-deps.sh)" >&2; exit 1; }
export HOTEL_PG_PORT=$port HOTEL_PG_DIR=$dir

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Node 0 is scripts/postgres.sh's cluster; node K its K-th standby.
data_of() { if [ "$1" = 0 ]; then echo "$dir/pgdata"; else echo "$dir/node$1/pgdata"; fi; }
run_of() { if [ "$1" = 0 ]; then echo "$dir/pgrun"; else echo "$dir/node$1/run"; fi; }
log_of() { if [ "$1" = 0 ]; then echo "$dir/postgres.log"; else echo "$dir/node$1/postgres.log"; fi; }
port_of() { echo $((port + $1)); }

# The nodes that exist: 0 and every DIR/node<K> with a data directory.
nodes() {
  echo 0
  local d
  for d in "$dir"/node*/pgdata; do
    [ -s "$d/PG_VERSION" ] && basename "$(dirname "$d")" | sed 's/^node//'
  done | sort -n
  return 0
}

superuser_password() { cat "$dir/secrets/postgres.password"; }

# psql as the superuser on node K's own socket.
sql() {
  local k=$1
  shift
  PGPASSWORD=$(superuser_password) psql -h "$(run_of "$k")" -p "$(port_of "$k")" -U postgres -d postgres \
    -v ON_ERROR_STOP=1 -qAt "$@"
}

running() { as_owner "$bindir/pg_ctl" -D "$(data_of "$1")" status >/dev/null 2>&1; }

role_of() {
  running "$1" || { echo down; return 0; }
  case "$(sql "$1" -c 'SELECT pg_is_in_recovery()' 2>/dev/null)" in
    f) echo primary ;;
    t) echo standby ;;
    *) echo starting ;;
  esac
}

primary() {
  local k
  for k in $(nodes); do
    [ "$(role_of "$k")" = primary ] && { echo "$k"; return 0; }
  done
  return 1
}

timeline_of() {
  as_owner "$bindir/pg_controldata" -D "$(data_of "$1")" | sed -n "s/^Latest checkpoint's TimeLineID: *//p"
}

# The node that is not a standby with the newest timeline (node0 in a set never failed over).
newest_timeline() {
  local k best=0 best_timeline=0 timeline
  for k in $(nodes); do
    [ -e "$(data_of "$k")/standby.signal" ] && continue
    timeline=$(timeline_of "$k")
    if [ "$timeline" -gt "$best_timeline" ]; then best=$k best_timeline=$timeline; fi
  done
  echo "$best"
}

# The password file the standbys connect with (owned by the server's OS user, mode 600).
passfile() {
  local file=$state/pgpass
  if [ ! -s "$file" ]; then
    (umask 077 && mkdir -p "$state" && echo "127.0.0.1:*:*:postgres:$(superuser_password)" >"$file")
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$state"
  fi
  echo "$file"
}

conninfo() { echo "host=127.0.0.1 port=$(port_of "$1") user=postgres passfile=$(passfile) application_name=node$2"; }

mode() { cat "$state/mode" 2>/dev/null || echo on; }

# synchronous_standby_names for the current mode: a quorum of one among every node (a primary is
# never its own standby, so the same value serves whichever node is primary).
sync_names() {
  [ "$(mode)" = off ] && { echo ""; return 0; }
  echo "ANY 1 ($(nodes | sed 's/^/node/' | paste -sd, | sed 's/,/, /g'))"
}

apply_sync() {
  sql "$1" -v names="$(sync_names)" <<<"ALTER SYSTEM SET synchronous_standby_names = :'names'; SELECT pg_reload_conf();" \
    >/dev/null
}

node_start() {
  local k=$1 p
  running "$k" && return 0
  p=$(port_of "$k")
  if [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; then
    echo "replicas.sh: port $p (node$k) is already in use; choose another HOTEL_PG_PORT" >&2
    exit 1
  fi
  mkdir -p "$(run_of "$k")"
  touch "$(log_of "$k")"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$(run_of "$k")" "$(log_of "$k")"
  as_owner "$bindir/pg_ctl" -D "$(data_of "$k")" -l "$(log_of "$k")" -w -t 120 \
    -o "-p $p -k $(run_of "$k") -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=${HOTEL_PG_FSYNC:-on}" \
    start >/dev/null || { echo "replicas.sh: node$k did not start; the end of $(log_of "$k"):" >&2; tail -n 20 "$(log_of "$k")" >&2; exit 1; }
}

node_stop() {
  running "$1" || return 0
  # A postmaster that died meanwhile (killed) leaves its pid file: stopped all the same.
  as_owner "$bindir/pg_ctl" -D "$(data_of "$1")" -m "${2:-fast}" -w stop >/dev/null 2>&1 || ! running "$1"
}

# SIGKILL to node K's postmaster, as a machine's death; returns once it is gone.
node_kill() {
  local pid
  running "$1" || return 0
  pid=$(head -n 1 "$(data_of "$1")/postmaster.pid")
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
}

# Points standby K at node P (primary_conninfo is reloadable: a running standby follows at once,
# onto the new timeline).
follow() {
  local k=$1 p=$2 conf
  conf=$(data_of "$k")/postgresql.auto.conf
  grep -v '^primary_conninfo' "$conf" >"$conf.tmp" || true
  echo "primary_conninfo = '$(conninfo "$p" "$k")'" >>"$conf.tmp"
  mv "$conf.tmp" "$conf"
  as_owner touch "$(data_of "$k")/standby.signal"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$conf"
  if running "$k"; then sql "$k" -c 'SELECT pg_reload_conf()' >/dev/null; fi
}

# A fresh copy of the primary P as node K's data directory.
clone() {
  local k=$1 p=$2 data
  data=$(data_of "$k")
  rm -rf "$data"
  mkdir -p "$data"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$(dirname "$data")" "$data"
  chmod 700 "$data"
  as_owner "$bindir/pg_basebackup" -D "$data" -d "$(conninfo "$p" "$k")" -X stream -c fast >/dev/null
  follow "$k" "$p"
}

start() {
  local standbys=${1:-2} k p
  [ -n "${HOTEL_PG_SYNC:-}" ] && { mkdir -p "$state"; echo "$HOTEL_PG_SYNC" >"$state/mode"; }
  if [ ! -s "$(data_of 0)/PG_VERSION" ]; then
    bash "$root/scripts/postgres.sh" start >/dev/null  # node0: initdb, passwords, roles, database
  fi
  # One primary only: a running one, else the stopped one on the newest timeline; any other node
  # that is not a standby is an old primary (killed in a drill, say) and rejoins instead of starting.
  p=$(primary) || p=$(newest_timeline)
  node_start "$p"
  for k in $(nodes); do
    [ "$k" = "$p" ] && continue
    if [ -e "$(data_of "$k")/standby.signal" ]; then (node_start "$k" 2>/dev/null) || rejoin "$k"; else rejoin "$k"; fi
  done
  [ "$(role_of "$p")" = primary ] || { echo "replicas.sh: node$p is not a primary (promote one: $0 promote K)" >&2; exit 1; }
  if [ "$p" = 0 ]; then bash "$root/scripts/postgres.sh" start >/dev/null; fi  # roles brought up to date
  # pg_rewind needs hint bits in the WAL; standbys keep enough WAL to catch up after a restart.
  if [ "$(sql "$p" -c 'SHOW wal_log_hints')" != on ]; then
    sql "$p" -c "ALTER SYSTEM SET wal_log_hints = on" -c "ALTER SYSTEM SET wal_keep_size = '512MB'" >/dev/null
    node_stop "$p"
    node_start "$p"
  fi
  for ((k = 1; k <= standbys; k++)); do
    [ -s "$(data_of "$k")/PG_VERSION" ] || clone "$k" "$p"
  done
  for k in $(nodes); do node_start "$k"; done
  apply_sync "$p"
  status
}

status() {
  local k
  for k in $(nodes); do echo "node$k $(port_of "$k") $(role_of "$k")"; done
}

promote() {
  local k=$1 other
  [ "$(role_of "$k")" = standby ] || { echo "replicas.sh: node$k is not a running standby" >&2; exit 1; }
  as_owner "$bindir/pg_ctl" -D "$(data_of "$k")" -w -t 60 promote >/dev/null
  apply_sync "$k"
  sql "$k" -c CHECKPOINT >/dev/null  # the new timeline in the control file, for pg_rewind and restarts
  for other in $(nodes); do
    [ "$other" != "$k" ] && [ "$(role_of "$other")" = standby ] && follow "$other" "$k"
  done
  return 0
}

rejoin() {
  local k=$1 p
  p=$(primary) || { echo "replicas.sh: no primary to rejoin" >&2; exit 1; }
  [ "$p" != "$k" ] || { echo "replicas.sh: node$k is the primary" >&2; exit 1; }
  node_stop "$k" fast
  # pg_rewind reads the source's timeline from its control file: a checkpoint after a promotion
  # puts it there.
  sql "$p" -c CHECKPOINT >/dev/null
  # Rewinds the diverged end of K's history onto the primary's timeline (after a crash it first
  # finishes crash recovery in single-user mode); when it cannot, or K then cannot start, a fresh copy.
  if as_owner "$bindir/pg_rewind" -D "$(data_of "$k")" --source-server="$(conninfo "$p" "$k") dbname=postgres" \
    >>"$(log_of "$k")" 2>&1; then
    follow "$k" "$p"
    (node_start "$k") && return 0
  fi
  echo "replicas.sh: node$k could not be rewound (see $(log_of "$k")); cloning it afresh" >&2
  clone "$k" "$p"
  node_start "$k"
}

delay() {
  sql "$1" -v delay="$2" <<<"ALTER SYSTEM SET recovery_min_apply_delay = :'delay'; SELECT pg_reload_conf();" >/dev/null
}

# A URL over the given nodes, as scripts/postgres.sh url gives for one.
url_over() {
  local attrs=$1 role=$2 db=$3 hosts k
  shift 3
  hosts=$(for k in "$@"; do echo "127.0.0.1:$(port_of "$k")"; done | paste -sd,)
  bash "$root/scripts/postgres.sh" url "$role" "$db" |
    sed -E "s#@127\.0\.0\.1:[0-9]+/#@$hosts/#; s#\$#?target_session_attrs=$attrs#"
}

case "${1:-}" in
  start) start "${2:-2}" ;;
  stop) for k in $(nodes | sort -rn); do node_stop "$k" "${2:-fast}"; done ;;
  status) status ;;
  kill) node_kill "$2" ;;
  promote) promote "$2" ;;
  rejoin) rejoin "$2" ;;
  delay) delay "$2" "$3" ;;
  url) url_over read-write "${2:-runtime}" "${3:-hotel}" $(nodes) ;;
  read-url) url_over prefer-standby "${2:-runtime}" "${3:-hotel}" $(nodes) ;;
  *) echo "usage: $0 start [N] | stop [fast|immediate] | status | kill K | promote K | rejoin K | delay K DURATION | url [ROLE] [DB] | read-url [ROLE] [DB]" >&2; exit 2 ;;
esac
