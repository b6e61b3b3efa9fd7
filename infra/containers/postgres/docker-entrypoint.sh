#!/bin/bash
# The official image's contract, reduced to what the tests use: on a first start create the
# cluster with POSTGRES_PASSWORD (password auth over TCP, or POSTGRES_HOST_AUTH_METHOD), start and stop it once (so "ready to
# accept connections" is printed twice, as the official image does), then run the server as the
# postgres user. A restarted container finds its cluster and starts it at once.
set -euo pipefail

if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pwfile"
  initdb -U "${POSTGRES_USER:-postgres}" --pwfile="$pwfile" --auth-local=trust --auth-host="$auth" \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
  pg_ctl -D "$PGDATA" -m fast -w stop
fi

# The official image's configuration listens on every address; Debian's default is localhost only.
if [ "${1:-}" = postgres ]; then set -- "$@" -c "listen_addresses=*"; fi
exec "$@"
