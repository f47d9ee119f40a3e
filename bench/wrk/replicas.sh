#!/usr/bin/env bash
# PostgreSQL with one replica and with two, beside the embedded store, in one run: one
# understudy build started as a memory server and as two servers on one PostgreSQL schema
# (two replicas of one sandbox). For each operation and round: memory, then PostgreSQL
# through one replica (CONNECTIONS connections), then through both at once (two wrk runs of
# CONNECTIONS/2 connections each, started together: req/s is their sum, p99 the higher of
# the two), each a fresh run of DURATION against a state reset to its seed.
#
#   bench/wrk/replicas.sh
#   ROUNDS=5 DURATION=10s OPS="roleassign" bench/wrk/replicas.sh
#   BASE=lean bench/wrk/replicas.sh     # also the PostgreSQL engine of another git ref, one replica
#   STORE='postgres://user@db/bench' bench/wrk/replicas.sh   # a database of your own
#
# Without STORE it starts a cluster of its own (.ci/postgres.sh with PG_DURABLE=1: fsync and
# synchronous_commit on, as a deployment runs), pinned with the servers. Prints a Markdown
# table of the medians of the rounds.
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-roleassign accountcreate frinsert}
STORE=${STORE:-}
BASE=${BASE:-}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

pg_store "bench_$$" "bench_base_$$"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
targets=(memory pg pg2)
start memory "$tmp/understudy" --log-level warn --compute-operation-mode immediate
start pg "$tmp/understudy" --log-level warn --compute-operation-mode immediate --store "$STORE${sep}search_path=bench_$$"
addr pg >/dev/null # the first replica has made and seeded the schema
start pg2 "$tmp/understudy" --log-level warn --compute-operation-mode immediate --store "$STORE${sep}search_path=bench_$$"
if [ -n "$BASE" ]; then
	mkdir "$tmp/base"
	git -C "$root" archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && go build -o "$tmp/understudy-base" ./cmd/understudy)
	start base "$tmp/understudy-base" --log-level warn --compute-operation-mode immediate --store "$STORE${sep}search_path=bench_base_$$"
	targets+=(base)
fi
declare -A url
for t in memory pg pg2 "${targets[@]}"; do url[$t]=http://$(addr "$t"); done

# one OP TARGET: one run of OP against TARGET; "pg2" is both replicas at once.
one() {
	curl -fsS -X POST "${url[$2]}/_understudy/reset" >/dev/null
	: >"$tmp/accounts"
	if [ "$2" != pg2 ]; then
		attack "$1" "${url[$2]}"
		return
	fi
	local half=$((CONNECTIONS / 2))
	CONNECTIONS=$half attack "$1" "${url[pg]}" >"$tmp/a1" &
	local p1=$!
	CONNECTIONS=$half attack "$1" "${url[pg2]}" >"$tmp/a2"
	wait "$p1"
	awk '{ r += $1; if ($3 > p) p = $3; b += $4 } END { printf "%.0f 0 %.2f %d\n", r, p, b }' "$tmp/a1" "$tmp/a2"
}


echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs, $(date -u '+%F %H:%M') UTC, $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned$([ -n "$own_pg" ] && [ ${#pin_server[@]} -gt 0 ] && echo ', PostgreSQL with the servers')"
echo "understudy $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' + uncommitted changes')${BASE:+, base $BASE ($(git -C "$root" rev-parse --short "$BASE"))}; PostgreSQL: $pg_settings"
echo
head="| operation | memory req/s | memory p99 | PostgreSQL, 1 replica | p99 | PostgreSQL, 2 replicas | p99 |"
rule="|---|---:|---:|---:|---:|---:|---:|"
if [ -n "$BASE" ]; then head="$head base PostgreSQL, 1 replica | p99 |" rule="$rule---:|---:|"; fi
echo "$head"
echo "$rule"
for op in $OPS; do
	for t in "${targets[@]}"; do : >"$tmp/r.$t"; done
	for _ in $(seq "$ROUNDS"); do
		for t in "${targets[@]}"; do one "$op" "$t" >>"$tmp/r.$t"; done
	done
	line="| $op |"
	bad=0
	for t in "${targets[@]}"; do
		r=$(cut -d' ' -f1 "$tmp/r.$t" | median) p=$(cut -d' ' -f3 "$tmp/r.$t" | median)
		line="$line $(awk -v r="$r" -v p="$p" 'BEGIN { printf "%.0f | %.2f ms |", r, p }')"
		bad=$((bad + $(awk '{ s += $4 } END { print s + 0 }' "$tmp/r.$t")))
	done
	if [ "$bad" -gt 0 ]; then line="$line ($bad non-2xx)"; fi
	echo "$line"
done
