#!/usr/bin/env bash
# Refreshes cmd/understudy/default.pgo, the CPU profile that `go build` optimizes the
# binary with (profile-guided optimization: hot calls inlined, hot code laid out first;
# go.dev/doc/pgo). Builds understudy, runs it with --cpu-profile, pinned to CPU 1 when it
# can, drives each seed operation that bench/wrk/run.sh drives with wrk for DURATION, stops
# it, and writes the profile in place. Commit it with the gain it measured.
#
#   bench/wrk/pgo.sh                 # 10 s per operation
#   DURATION=20s bench/wrk/pgo.sh
set -euo pipefail

DURATION=${DURATION:-10s}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
start understudy "$tmp/understudy" --log-level warn --compute-operation-mode immediate --cpu-profile "$tmp/cpu.pprof"
us=http://$(addr understudy)
for op in $OPS; do
	prepare_op "$us" "$op"
	WRK_OP=$op WRK_SALT=$RANDOM$RANDOM WRK_ACCOUNTS="$tmp/accounts" WRK_RULES="$tmp/rules" \
		"${pin_load[@]}" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$here/ops.lua" "$us" |
		awk -v op="$op" '/^Requests\/sec:/ { rps = $2 } /Non-2xx/ { bad = $NF } END { printf "%s: %.0f req/s, %d non-2xx\n", op, rps, bad }'
done
# The profile is complete once the server has stopped.
kill -TERM "${pids[0]}"
wait "${pids[0]}"
pids=()
cp "$tmp/cpu.pprof" "$root/cmd/understudy/default.pgo"
echo "wrote cmd/understudy/default.pgo ($(wc -c <"$root/cmd/understudy/default.pgo") bytes)"
