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
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
build_baseline "$tmp/baseline"

start understudy "$tmp/understudy" --log-level warn --compute-operation-mode immediate
start baseline "$tmp/baseline"
us=http://$(addr understudy)
base=http://$(addr baseline)

# prepare OP: understudy back to its seed, and the accounts account links need.
prepare() {
	curl -fsS -X POST "$us/_understudy/reset" >/dev/null
	if [ "$1" = accountlink ]; then
		make_accounts "$us"
	fi
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
