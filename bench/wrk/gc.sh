#!/usr/bin/env bash
# What the garbage collector does to the tail: understudy under each GOGC setting in GOGCS
# ("default" leaves GOGC unset, as the runtime runs; "off" turns the collector off, which is
# for this measurement only, never a setting: the heap only grows), a fresh server for each
# run so that such a heap stays small, alternated ROUNDS times for each operation in OPS.
# Prints each run's req/s, p50 and p99, and the medians.
#
#   bench/wrk/gc.sh
#   OPS=roleassign GOGCS="default 400 2000 off" bench/wrk/gc.sh
set -euo pipefail

DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
OPS=${OPS:-roleassign setlabels accountcreate}
GOGCS=${GOGCS:-default off}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
# runs_median GOGC COLUMN: the median of a column (2 req/s, 3 p50, 4 p99) of that setting's runs.
runs_median() { awk -v g="$1" -v c="$2" '$1 == g { print $c }' "$tmp/runs" | median; }

echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs, $(date -u '+%F %H:%M') UTC, $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned"
echo
echo "| operation | GOGC | req/s | p50 | p99 |"
echo "|---|---|---:|---:|---:|"
for op in $OPS; do
	: >"$tmp/runs"
	for round in $(seq "$ROUNDS"); do
		for gc in $GOGCS; do
			name=$op-$round-$gc
			if [ "$gc" = default ]; then
				start "$name" env -u GOGC "$tmp/understudy" --log-level warn --compute-operation-mode immediate
			else
				GOGC=$gc start "$name" "$tmp/understudy" --log-level warn --compute-operation-mode immediate
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
	for gc in $GOGCS; do
		echo "| $op | $gc, median | $(runs_median "$gc" 2) | $(runs_median "$gc" 3) ms | $(runs_median "$gc" 4) ms |"
	done
done
