#!/usr/bin/env bash
# Restores a new project-local cluster from the backups to a point in time
# (docs/operations.md, "Backups and recovery"):
#   scripts/restore.sh --target-time TIME [--from ENV_FILE] [--backup-id ID]
# TIME: a timestamp with time zone ("2026-11-24 03:12:00+00", ISO 8601), or "latest": everything
# archived (the database is gone, no mistake to undo). The backups are read from
# ENV_FILE (a backup.env as scripts/postgres.sh writes it; default: the HOTEL_BACKUP_* and AWS_*
# environment). The new cluster goes to HOTEL_PG_DIR / HOTEL_PG_PORT (as for scripts/postgres.sh),
# which must not hold one yet. Steps: the newest base backup that ended before TIME
# (barman-cloud-restore), WAL replayed up to TIME (restore_command barman-cloud-wal-restore,
# recovery_target_time, recovery.signal) and promoted; then scripts/postgres.sh start gives the
# roles this directory's passwords, and scripts/change-log-after-restore.sql moves the change
# feed past the cursors the restore threw away. Prints the runtime role's URL. The new cluster
# does not archive WAL until you give it a destination of its own (never the source's).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${HOTEL_PG_PORT:-54329}
dir=${HOTEL_PG_DIR:-$root/.local}
data=$dir/pgdata
run=$dir/pgrun
log=$dir/postgres.log
target="" from="" backup_id=""
usage() { echo "usage: $0 --target-time TIME [--from ENV_FILE] [--backup-id ID]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --target-time) target=${2:-}; shift 2 || usage ;;
    --from) from=${2:-}; shift 2 || usage ;;
    --backup-id) backup_id=${2:-}; shift 2 || usage ;;
    *) usage ;;
  esac
done
[ -n "$target" ] || usage
# One unambiguous form (UTC, microseconds) for PostgreSQL and for choosing the backup.
target_setting=""
if [ "$target" = latest ]; then
  target=$(date -u '+%Y-%m-%d %H:%M:%S.%6N+00')
else
  target=$(date -u -d "$target" '+%Y-%m-%d %H:%M:%S.%6N+00') || { echo "restore.sh: cannot read the time '$target'" >&2; exit 2; }
  target_setting="recovery_target_time = '$target'"
fi
[ -s "$data/PG_VERSION" ] && { echo "restore.sh: $data holds a cluster already; restore into a new HOTEL_PG_DIR" >&2; exit 1; }
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
barman() { as_owner "$root/scripts/barman-cloud.sh" "$source_env" "$@"; }

mkdir -p "$dir" "$run"
# The source's destination and credentials, readable by the restore_command (the postgres user).
source_env=$dir/restore-source.env
if [ -n "$from" ]; then
  (umask 077 && cp "$from" "$source_env")
else
  [ -n "${HOTEL_BACKUP_DESTINATION:-}" ] || { echo "restore.sh: give --from ENV_FILE or HOTEL_BACKUP_DESTINATION" >&2; exit 2; }
  (umask 077 && for name in HOTEL_BACKUP_DESTINATION HOTEL_BACKUP_ENDPOINT_URL HOTEL_BACKUP_SERVER_NAME \
      AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION; do
      [ -z "${!name:-}" ] || echo "$name=$(printf '%q' "${!name}")"
    done >"$source_env")
fi
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir" "$run" "$source_env"; fi
chmod 700 "$run"  # the socket is the only way in while the superuser may connect without a password
trap 'rm -f "$source_env"' EXIT

if [ -z "$backup_id" ]; then
  # The newest complete backup that ended before the target (end_time: this machine's local
  # time, whole seconds, so one second of margin).
  backup_id=$(barman backup-list --format json | python3 -c '
import datetime, json, sys, time
target = datetime.datetime.strptime(sys.argv[1].replace("+00", "+0000"), "%Y-%m-%d %H:%M:%S.%f%z").timestamp()
done = [b for b in json.load(sys.stdin)["backups_list"] if b["status"] == "DONE"
        and time.mktime(time.strptime(b["end_time"], "%a %b %d %H:%M:%S %Y")) + 1 <= target]
print(max(done, key=lambda b: b["backup_id"])["backup_id"] if done else "")' "$target")
  [ -n "$backup_id" ] || { echo "restore.sh: no complete base backup ended before $target" >&2; exit 1; }
fi
echo "restore.sh: base backup $backup_id, WAL up to ${target_setting:+$target}${target_setting:-the end of the archive}" >&2
barman restore -- "$backup_id" "$data"
chmod 700 "$data"

# Recovery settings: replayed up to the target, then promoted (a new timeline). Until the roles
# get this directory's passwords, only the superuser may connect, over the socket alone.
as_owner tee -a "$data/postgresql.auto.conf" >/dev/null <<CONF
# restore.sh (removed after the recovery)
restore_command = '"$root/scripts/barman-cloud.sh" "$source_env" wal-restore -- %f %p'
$target_setting
recovery_target_action = 'promote'
CONF
as_owner touch "$data/recovery.signal"
printf '# written by scripts/restore.sh until the recovery ends\nlocal all postgres trust\n' | as_owner tee "$data/pg_hba.conf" >/dev/null
touch "$log"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$log"
# -w: back once the replay is consistent (or failed); the replay goes on to the target after.
# max_connections as scripts/postgres.sh sets it: a standby may not have fewer than its primary.
as_owner "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 3600 -o "-p $port -k $run -c listen_addresses='' -c max_connections=200" start >/dev/null || {
  echo "restore.sh: the recovery failed (remove $dir before trying again); the end of $log:" >&2
  tail -n 15 "$log" >&2
  exit 1
}

# Wait for the promotion; a target the WAL does not reach stops PostgreSQL with a FATAL error.
while true; do
  if ! as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    echo "restore.sh: the recovery failed (remove $dir before trying again); the end of $log:" >&2
    tail -n 15 "$log" >&2
    exit 1
  fi
  state=$(psql -h "$run" -p "$port" -U postgres -d postgres -qAtc 'SELECT pg_is_in_recovery()' 2>/dev/null || true)
  [ "$state" = f ] && break
  sleep 0.5
done
as_owner "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null
as_owner sed -i '/^# restore.sh (removed after the recovery)$/,$d' "$data/postgresql.auto.conf"
rm -f "$source_env"

# The usual start: passwords for every connection, this directory's role passwords. Without the
# source's destination: the new cluster must never archive into the history it came from.
url=$(env -u HOTEL_BACKUP_DESTINATION -u HOTEL_BACKUP_ENDPOINT_URL -u HOTEL_BACKUP_SERVER_NAME \
  bash "$root/scripts/postgres.sh" start)
PGPASSWORD=$(bash "$root/scripts/postgres.sh" url admin | sed -E 's|^postgresql://[^:]+:([^@]+)@.*$|\1|')
export PGPASSWORD
for db in $(psql -h "$run" -p "$port" -U postgres -d postgres -qAtc \
  "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate"); do
  if [ "$(psql -h "$run" -p "$port" -U postgres -d "$db" -qAtc "SELECT to_regclass('public.change_log_state') IS NOT NULL")" = t ]; then
    psql -h "$run" -p "$port" -U postgres -d "$db" -v ON_ERROR_STOP=1 -qAt -f "$root/scripts/change-log-after-restore.sql" >/dev/null
  fi
done
echo "$url"
