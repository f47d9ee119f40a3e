#!/usr/bin/env bash
# What the garbage collector does to the tail: understudy as it runs (the collector on, as
# the runtime sets it) against the same build with GOGC=off, a fresh server for each run so
# that a heap that only grows stays small (GOGC=off is for this measurement, never a
# setting), alternated ROUNDS times for each operation in OPS. Prints each run's req/s, p50
# and p99, and the medians.
#
#   bench/wrk/gc.sh
#   OPS=setlabels ROUNDS=5 bench/wrk/gc.sh
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-roleassign setlabels accountcreate}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)

echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs, $(date -u '+%F %H:%M') UTC, $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned"
echo
echo "| operation | collector | req/s | p50 | p99 |"
echo "|---|---|---:|---:|---:|"
for op in $OPS; do
	: >"$tmp/runs"
	for round in $(seq "$ROUNDS"); do
		for gc in on off; do
			name=$op-$round-$gc
			if [ "$gc" = off ]; then
				GOGC=off start "$name" "$tmp/understudy" --log-level warn --compute-operation-mode immediate
			else
				start "$name" env -u GOGC "$tmp/understudy" --log-level warn --compute-operation-mode immediate
			fi
			url=http://$(addr "$name")
			prepare_op "$url" "$op"
			read -r rps p50 p99 _ < <(attack "$op" "$url")
			echo "$gc $rps $p50 $p99" >>"$tmp/runs"
			echo "| $op | $gc | $rps | $p50 ms | $p99 ms |"
			kill "${pids[-1]}"
			wait "${pids[-1]}" 2>/dev/null || true
		done
	done
	for gc in on off; do
		echo "| $op | $gc, median | $(awk -v g="$gc" '$1 == g { print $2 }' "$tmp/runs" | median) | $(awk -v g="$gc" '$1 == g { print $3 }' "$tmp/runs" | median) ms | $(awk -v g="$gc" '$1 == g { print $4 }' "$tmp/runs" | median) ms |"
	done
done
