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
CONNECTIONS=${CONNECTIONS:-64}
ACCOUNTS=${ACCOUNTS:-500}
OPS=${OPS:-roleassign accountlink frinsert groupinsert}

command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

pin_server=() pin_load=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 1) pin_load=(taskset -c 0)
fi

(cd "$root" && go build -o "$tmp/understudy" ./cmd/understudy)
"${pin_server[@]}" "$tmp/understudy" --addr 127.0.0.1:0 --log-level warn --compute-operation-mode immediate \
	--cpu-profile "$tmp/cpu.pprof" 2>"$tmp/log" &
pid=$!
addr=
for _ in $(seq 100); do
	addr=$(grep -o '"addr":"[^"]*"' "$tmp/log" | head -1 | cut -d'"' -f4 || true)
	[ -n "$addr" ] && break
	sleep 0.05
done
[ -n "$addr" ] || { cat "$tmp/log" >&2; exit 1; }
us=http://$addr

for i in $(seq "$ACCOUNTS"); do
	curl -fsS "$us/v2/core/accounts" -H "Authorization: Bearer sk_test_bench1" \
		-H "Service-Version: 2026-05-27.dahlia" -H "Content-Type: application/json" \
		-d "{\"display_name\":\"Bench $i\",\"configuration\":{\"recipient\":{}}}" |
		grep -o '"id":"acct_[^"]*"' | head -1 | cut -d'"' -f4 >>"$tmp/accounts"
done
for op in $OPS; do
	WRK_OP=$op WRK_SALT=$RANDOM$RANDOM WRK_ACCOUNTS="$tmp/accounts" \
		"${pin_load[@]}" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$here/ops.lua" "$us" |
		awk -v op="$op" '/^Requests\/sec:/ { rps = $2 } /Non-2xx/ { bad = $NF } END { printf "%s: %.0f req/s, %d non-2xx\n", op, rps, bad }'
done
kill -TERM "$pid"
wait "$pid"
pid=
cp "$tmp/cpu.pprof" "$root/cmd/understudy/default.pgo"
echo "wrote cmd/understudy/default.pgo ($(wc -c <"$root/cmd/understudy/default.pgo") bytes)"
