#!/usr/bin/env bash
# A project-local PostgreSQL cluster for development and tests, in .local/ (never the system one).
#   scripts/postgres.sh start           initialise if needed, start, create the roles and database "hotel"
#   scripts/postgres.sh stop [MODE]     stop (MODE: fast | immediate; default fast)
#   scripts/postgres.sh status
#   scripts/postgres.sh reachable       make sure the postgres OS user can reach DIR (below), or say why not
#   scripts/postgres.sh port            the port the cluster in DIR runs on, else a free one (scripts/test.sh)
#   scripts/postgres.sh url [ROLE] [DB] a working URL, password included: ROLE runtime (default; what
#                                       the server serves with), owner (migrations) or admin
#                                       (superuser); DB defaults to hotel
# Roles (docs/operations.md): "hotel" owns the schema and migrates it; "hotel_runtime" has only the
# DML the requests need; "postgres" is the superuser. None has CREATEDB or CREATEROLE but postgres.
# Every connection needs a password (scram-sha-256, no trust); the passwords are generated once
# into .local/secrets/ (mode 600) and never printed except by `url`.
# Port: HOTEL_PG_PORT (default 54329); directory: HOTEL_PG_DIR (default .local). Idempotent. A port another
# process listens on is an error naming it (scripts/test.sh uses a cluster of its own, .local/test-cluster).
# WAL archiving (docs/operations.md, "Backups and recovery") is off unless a backup destination is
# configured: `HOTEL_BACKUP_DESTINATION=s3://bucket/prefix scripts/postgres.sh start` (with
# HOTEL_BACKUP_ENDPOINT_URL for an S3-compatible endpoint, AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY, optionally HOTEL_BACKUP_SERVER_NAME and HOTEL_BACKUP_ARCHIVE_TIMEOUT)
# writes DIR/backup.env (mode 600); from then on every start archives WAL there with
# barman-cloud-wal-archive, and a role "hotel_backup" (backup functions only) exists for
# scripts/backup.sh. Remove backup.env and restart to stop archiving.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${HOTEL_PG_PORT:-54329}
dir=${HOTEL_PG_DIR:-$root/.local}
data=$dir/pgdata
run=$dir/pgrun
log=$dir/postgres.log
secrets=$dir/secrets
backup_env=$dir/backup.env
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] || { echo "postgres.sh: PostgreSQL server not installed (run scripts/install-deps.sh)" >&2; exit 1; }

# initdb and postgres refuse to run as root: run them as the postgres system user then.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Run as root, the cluster's files belong to the postgres OS user, which must be able to pass through every
# directory above DIR. A checkout in a private home (/root is mode 700) is not: give that user search
# permission alone (x, by an ACL, nothing listed or readable) on each directory in the way, and say so.
# Whatever cannot be fixed is said here, before anything is built.
reachable() {
  [ "$(id -u)" = 0 ] || return 0
  mkdir -p "$dir"
  local path="" part parts fixed=()
  IFS=/ read -ra parts <<<"$dir"
  for part in "${parts[@]}"; do
    [ -n "$part" ] || continue
    path+=/$part
    runuser -u postgres -- /usr/bin/test -x "$path" && continue
    if ! setfacl -m u:postgres:x "$path" 2>/dev/null; then
      echo "postgres.sh: the postgres OS user cannot enter $path, so it cannot keep the cluster in $dir, and an" >&2
      echo "  ACL could not be set there (setfacl: package acl; a file system without ACLs?). Fix: clone the" >&2
      echo "  checkout elsewhere (e.g. /srv), run: chmod o+x $path, or set HOTEL_PG_DIR to a directory it can reach." >&2
      exit 1
    fi
    fixed+=("$path")
  done
  [ ${#fixed[@]} -eq 0 ] ||
    echo "postgres.sh: let the postgres OS user pass through ${fixed[*]} (search only, an ACL) to reach the cluster in $dir; undo: setfacl -x u:postgres <dir>" >&2
}

role_name() {
  case "$1" in
    runtime) echo hotel_runtime ;;
    owner) echo hotel ;;
    admin) echo postgres ;;
    backup) echo hotel_backup ;;
    *) echo "postgres.sh: unknown role '$1' (runtime | owner | admin | backup)" >&2; exit 2 ;;
  esac
}

# The password of a database role, generated on first use. Hex only, so URLs need no escaping.
password() {
  local file=$secrets/$1.password
  if [ ! -s "$file" ]; then
    (umask 077 && mkdir -p "$secrets" && od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$file.tmp" &&
      mv "$file.tmp" "$file")
  fi
  cat "$file"
}

url() {
  local role
  role=$(role_name "${1:-runtime}")
  [ -s "$secrets/$role.password" ] || { echo "postgres.sh: no cluster in $dir yet (run: $0 start)" >&2; exit 1; }
  echo "postgresql://$role:$(password "$role")@127.0.0.1:${port}/${2:-hotel}"
}

write_hba() {
  # Password authentication for every connection, socket and TCP alike.
  local hba=$data/pg_hba.conf want
  # Streaming replication (scripts/replicas.sh) only as the superuser, over loopback, with its password.
  want=$'# written by scripts/postgres.sh: passwords (scram-sha-256) for everyone, no trust\nlocal all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\nhost replication postgres 127.0.0.1/32 scram-sha-256'
  if [ "$(cat "$hba")" != "$want" ]; then
    printf '%s\n' "$want" | as_owner tee "$hba" >/dev/null
    return 0
  fi
  return 1
}

# Records the backup destination given in the environment (once; later starts reuse the file).
configure_backup() {
  [ -n "${HOTEL_BACKUP_DESTINATION:-}" ] || return 0
  local name value content=""
  for name in HOTEL_BACKUP_DESTINATION HOTEL_BACKUP_ENDPOINT_URL HOTEL_BACKUP_SERVER_NAME \
    HOTEL_BACKUP_ARCHIVE_TIMEOUT AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION; do
    value=${!name:-}
    [ -n "$value" ] && content+="$name=$(printf '%q' "$value")"$'\n'
  done
  (umask 077 && printf '%s' "$content" >"$backup_env.tmp" && mv "$backup_env.tmp" "$backup_env")
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$backup_env"
  return 0
}

# The archiving settings for a cluster with a backup destination: every finished WAL segment,
# and at least one every archive_timeout (the RPO, docs/decisions.md), goes to the object store.
archive_options() {
  [ -f "$backup_env" ] || return 0
  local timeout
  timeout=$(. "$backup_env" && echo "${HOTEL_BACKUP_ARCHIVE_TIMEOUT:-30s}")
  printf '%s' " -c archive_mode=on -c archive_timeout=$timeout -c archive_command='\"$root/scripts/barman-cloud.sh\" \"$backup_env\" wal-archive --gzip -- %p'"
}

# The port the running cluster in $dir listens on (empty when it is not running).
running_port() {
  as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 && sed -n 4p "$data/postmaster.pid"
  return 0
}

port_taken() {
  [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

pg_start() {
  if port_taken "$port"; then
    echo "postgres.sh: port $port is already in use (another cluster or checkout?); choose another with HOTEL_PG_PORT=<port>" >&2
    exit 1
  fi
  as_owner "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 \
    -o "-p $port -k $run -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=${HOTEL_PG_FSYNC:-on}$(archive_options)" start >/dev/null ||
    { echo "postgres.sh: PostgreSQL did not start; the end of $log:" >&2; tail -n 20 "$log" >&2; exit 1; }
}

start() {
  reachable
  configure_backup
  local superuser_password
  superuser_password=$(password postgres)
  if [ ! -s "$data/PG_VERSION" ]; then
    mkdir -p "$data" "$run"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$data" "$run"
    chmod 700 "$data"
    # initdb reads the superuser's password from a file the postgres user can open; removed at once.
    local pwfile=$run/initdb.pw
    (umask 077 && echo "$superuser_password" >"$pwfile")
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$pwfile"
    as_owner "$bindir/initdb" -D "$data" -U postgres --auth=scram-sha-256 --pwfile="$pwfile" \
      --encoding=UTF8 --locale=C.UTF-8 >/dev/null || { rm -f "$pwfile"; exit 1; }
    rm -f "$pwfile"
  fi
  mkdir -p "$run"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$run"
  touch "$log"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$log"
  local running=true
  as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 || running=false
  # Administration goes through this cluster's own socket directory, so a port mix-up can never
  # reach another cluster (another worktree's, say) and change its roles.
  if $running && [ "$(sed -n 4p "$data/postmaster.pid")" != "$port" ]; then
    echo "postgres.sh: the cluster in $dir runs on port $(sed -n 4p "$data/postmaster.pid"), not $port (HOTEL_PG_PORT)" >&2
    exit 1
  fi
  if grep -Eq '^[^#]*\btrust\b' "$data/pg_hba.conf"; then
    # A cluster made before passwords: give the superuser its password while trust still lets us in.
    $running || pg_start
    psql -h "$run" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt -v pw="$superuser_password" \
      <<<"ALTER ROLE postgres PASSWORD :'pw'" >/dev/null
    running=true
  fi
  if write_hba && $running; then
    as_owner "$bindir/pg_ctl" -D "$data" reload >/dev/null
  fi
  $running || pg_start
  # Roles and the database, brought to the same state on every start (also fixing older clusters,
  # where "hotel" had CREATEDB). Passwords travel as psql variables, never on a command line.
  PGPASSWORD=$superuser_password psql -h "$run" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt \
    -v owner_pw="$(password hotel)" -v runtime_pw="$(password hotel_runtime)" >/dev/null <<'SQL'
-- A primary of scripts/replicas.sh is set up before its synchronous standbys are up: do not wait for them.
SET synchronous_commit = local;
SELECT 'CREATE ROLE hotel' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hotel') \gexec
SELECT 'CREATE ROLE hotel_runtime' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hotel_runtime') \gexec
ALTER ROLE hotel LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'owner_pw';
ALTER ROLE hotel_runtime LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT
  PASSWORD :'runtime_pw';
SELECT 'CREATE DATABASE hotel OWNER hotel' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'hotel') \gexec
SQL
  if [ -f "$backup_env" ]; then
    if [ "$(PGPASSWORD=$superuser_password psql -h "$run" -p "$port" -U postgres -d postgres -qAtc 'SHOW archive_mode')" != on ]; then
      echo "postgres.sh: a backup destination is configured but the running cluster does not archive WAL: run $0 stop, then start" >&2
      exit 1
    fi
    # The backup role: a base backup needs the backup functions and read access to
    # the settings and statistics views (barman checks both), nothing else: it reads no table
    # (barman-cloud-backup copies the files as the OS user).
    PGPASSWORD=$superuser_password psql -h "$run" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt \
      -v backup_pw="$(password hotel_backup)" >/dev/null <<'SQL'
SET client_min_messages = warning;
SELECT 'CREATE ROLE hotel_backup' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hotel_backup') \gexec
ALTER ROLE hotel_backup LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'backup_pw';
GRANT EXECUTE ON FUNCTION pg_backup_start(text, boolean), pg_backup_stop(boolean), pg_switch_wal(),
  pg_create_restore_point(text) TO hotel_backup;
GRANT pg_read_all_settings, pg_read_all_stats TO hotel_backup;
SQL
  fi
}

stop() {
  [ -s "$data/PG_VERSION" ] || return 0
  if as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bindir/pg_ctl" -D "$data" -m "${1:-fast}" -w stop >/dev/null
  fi
}

case "${1:-}" in
  start) start; url runtime ;;
  stop) stop "${2:-fast}" ;;
  status) as_owner "$bindir/pg_ctl" -D "$data" status ;;
  reachable) reachable ;;
  port)
    running=$(running_port)
    [ -z "$running" ] || { echo "$running"; exit 0; }
    # A free port below the kernel's ephemeral range (32768-), where no client connection takes one
    # meanwhile; with HOTEL_PG_PORTS=N, the first of N free in a row (scripts/replicas.sh: node K on port + K).
    python3 - "${HOTEL_PG_PORTS:-1}" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
def free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False
while True:
    base = random.randrange(20000, 32768 - count)
    if all(free(base + k) for k in range(count)):
        print(base)
        break
PY
    ;;
  url) url "${2:-runtime}" "${3:-hotel}" ;;
  *) echo "usage: $0 start | stop [fast|immediate] | status | reachable | port | url [runtime|owner|admin|backup] [DATABASE]" >&2; exit 2 ;;
esac
