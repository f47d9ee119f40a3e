#!/usr/bin/env bash
# Cross-checks make bench with an independent load generator: wrk (Debian's wrk package),
# not vegeta, and none of the harness's Go code. Builds understudy and the Echo baseline,
# pins each to CPU 1 and wrk to CPU 0 (when taskset and two CPUs are there), and for each
# operation alternates baseline and understudy ROUNDS times. Understudy is reset to its seed
# (and its accounts made again) before each of its runs, as make bench does.
#
#   bench/wrk/run.sh                     # all four operations, 5 s runs, 3 rounds
#   DURATION=10s OPS="frinsert" bench/wrk/run.sh
#
# Prints a Markdown table: median req/s, p50 and p99 of the rounds, and the ratio. The
# setLabels chain is not driven (each call needs the fingerprint the GET before it read).
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
ACCOUNTS=${ACCOUNTS:-500}
OPS=${OPS:-roleassign accountlink frinsert groupinsert}

command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pin_server=() pin_load=() pinned="no (taskset missing or one CPU)"
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 1) pin_load=(taskset -c 0) pinned="servers on CPU 1, wrk on CPU 0"
fi

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy && go build -o "$tmp/baseline" ./bench/baseline)

# start NAME CMD...: starts a server on a free port (remembered for the cleanup).
start() {
	local name=$1
	shift
	"${pin_server[@]}" "$@" --addr 127.0.0.1:0 2>"$tmp/$name.log" >/dev/null &
	pids+=($!)
}

# addr NAME: the address NAME logged once listening.
addr() {
	for _ in $(seq 100); do
		local a
		a=$(grep -o '"addr":"[^"]*"' "$tmp/$1.log" | head -1 | cut -d'"' -f4 || true)
		if [ -n "$a" ]; then
			echo "$a"
			return
		fi
		sleep 0.05
	done
	echo "$1 did not start:" >&2
	cat "$tmp/$1.log" >&2
	exit 1
}

start understudy "$tmp/understudy" --log-level warn --compute-operation-mode immediate
start baseline "$tmp/baseline"
us=http://$(addr understudy)
base=http://$(addr baseline)

# prepare OP: understudy back to its seed, and the accounts account links need.
prepare() {
	curl -fsS -X POST "$us/_understudy/reset" >/dev/null
	if [ "$1" = accountlink ]; then
		for i in $(seq "$ACCOUNTS"); do
			curl -fsS "$us/v2/core/accounts" -H "Authorization: Bearer sk_test_bench1" \
				-H "Service-Version: 2026-05-27.dahlia" -H "Content-Type: application/json" \
				-d "{\"display_name\":\"Bench $i\",\"configuration\":{\"recipient\":{}}}" |
				grep -o '"id":"acct_[^"]*"' | head -1 | cut -d'"' -f4 >>"$tmp/accounts"
		done
	fi
}

# attack OP URL: one wrk run; prints "req/s p50_ms p99_ms non2xx".
attack() {
	local out
	out=$(WRK_OP=$1 WRK_SALT=$RANDOM$RANDOM WRK_ACCOUNTS="$tmp/accounts" \
		"${pin_load[@]}" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$here/ops.lua" "$2")
	awk '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
		$1 == "50%" { p50 = ms($2) }
		$1 == "99%" { p99 = ms($2) }
		/^Requests\/sec:/ { rps = $2 }
		/Non-2xx or 3xx responses:/ { bad = $NF }
		END { printf "%.0f %.2f %.2f %d\n", rps, p50, p99, bad }' <<<"$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%F), $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned"
echo
echo "| operation | understudy req/s | p50 | p99 | Echo req/s | Echo p99 | ratio | non-2xx |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for op in $OPS; do
	: >"$tmp/b" && : >"$tmp/u"
	for _ in $(seq "$ROUNDS"); do
		: >"$tmp/accounts"
		attack "$op" "$base" >>"$tmp/b"
		prepare "$op"
		attack "$op" "$us" >>"$tmp/u"
	done
	b_rps=$(cut -d' ' -f1 "$tmp/b" | median) b_p99=$(cut -d' ' -f3 "$tmp/b" | median)
	u_rps=$(cut -d' ' -f1 "$tmp/u" | median) u_p50=$(cut -d' ' -f2 "$tmp/u" | median) u_p99=$(cut -d' ' -f3 "$tmp/u" | median)
	bad=$(awk '{ s += $4 } END { print s + 0 }' "$tmp/u")
	awk -v op="$op" -v u="$u_rps" -v p50="$u_p50" -v p99="$u_p99" -v b="$b_rps" -v bp99="$b_p99" -v bad="$bad" \
		'BEGIN { printf "| %s | %.0f | %.2f ms | %.2f ms | %.0f | %.2f ms | %.2f | %d |\n", op, u, p50, p99, b, bp99, u / b, bad }'
done
