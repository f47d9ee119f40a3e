#!/usr/bin/env bash
# Cross-checks make bench with an independent load generator: wrk (Debian's wrk package),
# not vegeta, and none of the harness's Go code. Builds understudy, the bare Echo baseline
# and the Echo+kin ceiling (bench/ceiling: kin-openapi's request validation only, with
# understudy's specs and options), pins each to CPU 1 and wrk to CPU 0 (when taskset and
# two CPUs are there), and for each operation alternates baseline, ceiling and understudy
# ROUNDS times. Understudy is reset to its seed (and the operation's accounts or rules made
# again) before each of its runs, as make bench does.
#
#   bench/wrk/run.sh                     # every operation, 5 s runs, 3 rounds
#   DURATION=10s OPS="frinsert" bench/wrk/run.sh
#   STRIPE_MOCK=1 OPS=accountlink bench/wrk/run.sh    # and account links against stripe-mock
#
# Prints a Markdown table: median req/s, p50 and p99 of the rounds, and the ratios to
# both. setlabels counts the whole chain (a GET, then a setLabels with the fingerprint it
# read). With STRIPE_MOCK=1, stripe-mock (installed into the scratch directory with go
# install) gets the v1 account links it serves (POST /v1/account_links, form-encoded): it
# has no /v2/ paths, so that is the comparable endpoint.
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
build_baseline "$tmp/baseline"
build_ceiling "$tmp/ceiling"

start understudy "$tmp/understudy" --log-level warn --compute-operation-mode immediate
start baseline "$tmp/baseline"
start ceiling "$tmp/ceiling"
us=http://$(addr understudy)
base=http://$(addr baseline)
ceil=http://$(addr ceiling)
if [ "$STRIPE_MOCK" = 1 ]; then
	start_stripe_mock
	smock=http://$(addr stripemock)
fi

# prepare OP: understudy back to its seed, and what OP needs there.
prepare() {
	curl -fsS -X POST "$us/_understudy/reset" >/dev/null
	prepare_op "$us" "$1"
}

: >"$tmp/notes"

echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%F), $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned"
echo
echo "| operation | understudy req/s | p50 | p99 | Echo req/s | Echo+kin req/s | Echo+kin p99 | ratio to Echo | ratio to Echo+kin | non-2xx (understudy, Echo+kin) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for op in $OPS; do
	: >"$tmp/b" && : >"$tmp/c" && : >"$tmp/u" && : >"$tmp/s"
	for _ in $(seq "$ROUNDS"); do
		: >"$tmp/accounts" && : >"$tmp/rules"
		attack "$op" "$base" standin >>"$tmp/b"
		attack "$op" "$ceil" standin >>"$tmp/c"
		prepare "$op"
		attack "$op" "$us" >>"$tmp/u"
		if [ "$STRIPE_MOCK" = 1 ] && [ "$op" = accountlink ]; then
			attack accountlink_v1 "$smock" standin >>"$tmp/s"
		fi
	done
	b_rps=$(cut -d' ' -f1 "$tmp/b" | median)
	c_rps=$(cut -d' ' -f1 "$tmp/c" | median) c_p99=$(cut -d' ' -f3 "$tmp/c" | median)
	u_rps=$(cut -d' ' -f1 "$tmp/u" | median) u_p50=$(cut -d' ' -f2 "$tmp/u" | median) u_p99=$(cut -d' ' -f3 "$tmp/u" | median)
	bad=$(cat "$tmp/u" "$tmp/c" | awk '{ s += $4 } END { print s + 0 }')
	awk -v op="$op" -v u="$u_rps" -v p50="$u_p50" -v p99="$u_p99" -v b="$b_rps" -v c="$c_rps" -v cp99="$c_p99" -v bad="$bad" \
		'BEGIN { printf "| %s | %.0f | %.2f ms | %.2f ms | %.0f | %.0f | %.2f ms | %.2f | %.2f | %d |\n", op, u, p50, p99, b, c, cp99, u / b, u / c, bad }'
	if [ -s "$tmp/s" ]; then
		s_rps=$(cut -d' ' -f1 "$tmp/s" | median) s_p99=$(cut -d' ' -f3 "$tmp/s" | median)
		s_bad=$(awk '{ s += $4 } END { print s + 0 }' "$tmp/s")
		awk -v u="$u_rps" -v s="$s_rps" -v sp99="$s_p99" -v bad="$s_bad" -v v="$STRIPE_MOCK_VERSION" \
			'BEGIN { printf "stripe-mock %s, POST /v1/account_links: %.0f req/s, p99 %.2f ms, %d non-2xx; understudy (v2) / stripe-mock: %.2f\n", v, s, sp99, bad, u / s }' >>"$tmp/notes"
	fi
done
if [ -s "$tmp/notes" ]; then
	echo
	cat "$tmp/notes"
fi
