#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and benchmarks that run against PostgreSQL.
#
#   eval "$(.ci/postgres.sh start)"   # starts it (installing Debian's postgresql if missing)
#                                     # and exports UNDERSTUDY_TEST_POSTGRES, its URL
#   go test ./internal/store/...      # the PostgreSQL tests now run instead of skipping
#   .ci/postgres.sh stop              # stops it and removes its files
#   .ci/postgres.sh url               # prints the URL of the running cluster
#   .ci/postgres.sh pause             # stops the server, keeping the cluster's files
#   .ci/postgres.sh resume            # starts it again (a database restart, for fault tests)
#
# The cluster lives in $UNDERSTUDY_PG_DIR (default: understudy-pg under the temporary
# directory) and listens on a Unix socket there only, so it needs no free port and no other
# program can reach it. It is for tests: fsync is off unless PG_DURABLE=1 (the benchmarks
# set it, to measure what a real deployment pays for a commit). initdb refuses to run as
# root, so as root the cluster runs as the postgres user.
set -euo pipefail

dir=${UNDERSTUDY_PG_DIR:-${TMPDIR:-/tmp}/understudy-pg}
data=$dir/data
sock=$dir/run
url="postgres:///postgres?host=$sock&user=postgres&sslmode=disable"

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
  if [[ -z $d ]]; then
    command -v apt-get >/dev/null || { echo "postgres.sh: PostgreSQL is not installed (want Debian's postgresql)" >&2; exit 1; }
    [[ $(id -u) == 0 ]] || { echo "postgres.sh: PostgreSQL is not installed: sudo apt-get install postgresql" >&2; exit 1; }
    echo "postgres.sh: installing Debian's postgresql" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  fi
  echo "$d"
}

# as runs a command as the cluster's owner: postgres under root, else the caller.
as() {
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local bin
  bin=$(bindir)
  if [[ -f $data/postmaster.pid ]] && as "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    echo "export UNDERSTUDY_TEST_POSTGRES='$url'"
    return
  fi
  clean
  mkdir -p "$data" "$sock"
  if [[ $(id -u) == 0 ]]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    chown postgres: "$data" "$sock"
  fi
  chmod 700 "$data"
  as "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  local durable="fsync = off
synchronous_commit = off
full_page_writes = off"
  [[ ${PG_DURABLE:-} == 1 ]] && durable=""
  cat >>"$data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$sock'
max_connections = 300
shared_buffers = 128MB
$durable
EOF
  as "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null ||
    { cat "$data/server.log" >&2; exit 1; }
  echo "export UNDERSTUDY_TEST_POSTGRES='$url'"
}

# clean removes what start made (and only that: $UNDERSTUDY_PG_DIR may be a directory of
# the caller's).
clean() {
  rm -rf "$data" "$sock" "$dir/initdb.log"
  rmdir "$dir" 2>/dev/null || true
}

stop() {
  if [[ -d $data ]]; then
    as "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  clean
}

case ${1:-} in
start) start ;;
stop) stop ;;
pause) as "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >/dev/null ;;
resume) as "$(bindir)/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null ;;
url) [[ -f $data/postmaster.pid ]] || { echo "postgres.sh: no cluster is running in $dir" >&2; exit 1; }; echo "$url" ;;
*) echo "usage: $0 start|stop|url|pause|resume" >&2; exit 2 ;;
esac
