# Sourced by run.sh and pgo.sh: their settings, a scratch directory, CPU pinning, and
# starting a server and reading the address it logs.

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
if [ "${PIN:-1}" != 0 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin_server=(taskset -c 1) pin_load=(taskset -c 0) pinned="servers on CPU 1, wrk on CPU 0"
fi

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

# make_accounts URL: ACCOUNTS accounts with the recipient configuration (what account links
# need), their ids appended to $tmp/accounts.
make_accounts() {
	for i in $(seq "$ACCOUNTS"); do
		curl -fsS "$1/v2/core/accounts" -H "Authorization: Bearer sk_test_bench1" \
			-H "Service-Version: 2026-05-27.dahlia" -H "Content-Type: application/json" \
			-d "{\"display_name\":\"Bench $i\",\"configuration\":{\"recipient\":{}}}" |
			grep -o '"id":"acct_[^"]*"' | head -1 | cut -d'"' -f4 >>"$tmp/accounts"
	done
}

# build_baseline OUT: builds the bare Echo server the ratios are taken against.
build_baseline() {
	(cd "$root/bench" && go build -o "$1" ./baseline)
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

