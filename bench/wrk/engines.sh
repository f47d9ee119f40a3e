#!/usr/bin/env bash
# The stores side by side: one understudy build started three times, with its state in
# memory (the default), in --data-dir (embedded, every write synced) and in PostgreSQL
# (--store), each run alternated with the others in one run so that all see the same machine.
# For each operation and round: memory, data dir, PostgreSQL, each a fresh wrk run of
# DURATION against a server reset to its seed (as run.sh).
#
#   bench/wrk/engines.sh
#   ROUNDS=5 DURATION=10s OPS="roleassign" bench/wrk/engines.sh
#   STORE='postgres://user@db/bench' bench/wrk/engines.sh   # a database of your own
#
# Without STORE it starts a cluster of its own (.ci/postgres.sh, with fsync on, as a
# deployment runs: PG_DURABLE=1) in the scratch directory, pinned with the servers. Prints a
# Markdown table: median req/s and p99 of the rounds per store, and PostgreSQL's ratios.
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-roleassign accountcreate frinsert}
STORE=${STORE:-}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

pg_store "bench_$$"
STORE="$STORE${sep}search_path=bench_$$"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
start memory "$tmp/understudy" --log-level warn --compute-operation-mode immediate
start datadir "$tmp/understudy" --log-level warn --compute-operation-mode immediate --data-dir "$tmp/data"
start postgres "$tmp/understudy" --log-level warn --compute-operation-mode immediate --store "$STORE"
declare -A url
for t in memory datadir postgres; do url[$t]=http://$(addr $t); done

prepare() { # TARGET OP
	curl -fsS -X POST "${url[$1]}/_understudy/reset" >/dev/null
	: >"$tmp/accounts"
	if [ "$2" = accountlink ]; then make_accounts "${url[$1]}"; fi
}


echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs, $(date -u '+%F %H:%M') UTC, $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned$([ -n "$own_pg" ] && [ ${#pin_server[@]} -gt 0 ] && echo ', PostgreSQL with the servers')"
echo "understudy $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' + uncommitted changes'); PostgreSQL: $pg_settings"
echo
echo "| operation | memory req/s | memory p99 | data dir req/s | data dir p99 | PostgreSQL req/s | PostgreSQL p99 | PostgreSQL / memory | PostgreSQL / data dir |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for op in $OPS; do
	for t in memory datadir postgres; do : >"$tmp/r.$t"; done
	for _ in $(seq "$ROUNDS"); do
		for t in memory datadir postgres; do
			prepare "$t" "$op"
			attack "$op" "${url[$t]}" >>"$tmp/r.$t"
		done
	done
	m=$(cut -d' ' -f1 "$tmp/r.memory" | median) mp=$(cut -d' ' -f3 "$tmp/r.memory" | median)
	d=$(cut -d' ' -f1 "$tmp/r.datadir" | median) dp=$(cut -d' ' -f3 "$tmp/r.datadir" | median)
	p=$(cut -d' ' -f1 "$tmp/r.postgres" | median) pp=$(cut -d' ' -f3 "$tmp/r.postgres" | median)
	bad=$(cat "$tmp"/r.* | awk '{ s += $4 } END { print s + 0 }')
	awk -v op="$op" -v m="$m" -v mp="$mp" -v d="$d" -v dp="$dp" -v p="$p" -v pp="$pp" -v bad="$bad" \
		'BEGIN { printf "| %s | %.0f | %.2f ms | %.0f | %.2f ms | %.0f | %.2f ms | %.2f | %.2f |%s\n", op, m, mp, d, dp, p, pp, p / m, p / d, (bad > 0 ? " (" bad " non-2xx)" : "") }'
done
