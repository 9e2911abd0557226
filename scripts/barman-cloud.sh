#!/usr/bin/env bash
# Runs one barman cloud command against a cluster's backup destination:
#   scripts/barman-cloud.sh ENV_FILE COMMAND [OPTIONS...] [-- ARGS...]
# runs barman-cloud-COMMAND OPTIONS with the S3 provider, the endpoint, destination and server
# name of ENV_FILE (a cluster's backup.env, written by scripts/postgres.sh) and its credentials in
# the environment only (never on a command line), then ARGS (the positionals after the server name). PostgreSQL's archive_command and
# restore_command call it, so they carry no secret either.
set -euo pipefail
env_file=$1 command=$2
shift 2
options=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
[ $# -eq 0 ] || shift
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
endpoint=()
[ -z "${HOTEL_BACKUP_ENDPOINT_URL:-}" ] || endpoint=(--endpoint-url "$HOTEL_BACKUP_ENDPOINT_URL")
exec "barman-cloud-$command" --cloud-provider aws-s3 "${endpoint[@]}" "${options[@]}" \
  "$HOTEL_BACKUP_DESTINATION" "${HOTEL_BACKUP_SERVER_NAME:-hotel}" "$@"
