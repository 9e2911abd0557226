#!/usr/bin/env bash
# Takes a base backup of the project-local cluster now, into its backup destination
# (docs/operations.md, "Backups and recovery"): barman-cloud-backup, gzip, as the role
# "hotel_backup" (backup functions only), reading the data directory as its owner. Prints the
# backup's id. WAL archiving must be on (a cluster started with HOTEL_BACKUP_DESTINATION).
#   scripts/backup.sh [--name NAME]        HOTEL_PG_PORT, HOTEL_PG_DIR as for scripts/postgres.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${HOTEL_PG_PORT:-54329}
dir=${HOTEL_PG_DIR:-$root/.local}
name=()
case "${1:-}" in
  --name) name=(--name "$2") ;;
  "") ;;
  *) echo "usage: $0 [--name NAME]" >&2; exit 2 ;;
esac
[ -f "$dir/backup.env" ] || {
  echo "backup.sh: no backup destination for the cluster in $dir (start it with HOTEL_BACKUP_DESTINATION=s3://…; see docs/operations.md)" >&2
  exit 1
}
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
# The password reaches barman through the environment, never its command line.
PGPASSWORD=$(bash "$root/scripts/postgres.sh" url backup | sed -E 's|^postgresql://[^:]+:([^@]+)@.*$|\1|')
export PGPASSWORD
as_owner "$root/scripts/barman-cloud.sh" "$dir/backup.env" backup --gzip --immediate-checkpoint \
  -h 127.0.0.1 -p "$port" -U hotel_backup -d postgres "${name[@]}"
# The newest complete backup is the one just taken (ids are start times, YYYYMMDDTHHMMSS).
as_owner "$root/scripts/barman-cloud.sh" "$dir/backup.env" backup-list --format json |
  python3 -c 'import json, sys; print(max(b["backup_id"] for b in json.load(sys.stdin)["backups_list"] if b["status"] == "DONE"))'
