# shellcheck shell=bash
# shellcheck disable=SC2034 # the settings it makes are for the scripts that source it
# Sourced by the scripts beside it: their settings, a scratch directory, CPU pinning,
# starting a server and reading the address it logs, and the PostgreSQL that engines.sh and
# replicas.sh write to.

CONNECTIONS=${CONNECTIONS:-64}
ACCOUNTS=${ACCOUNTS:-500}
RULES=${RULES:-256}
OPS=${OPS:-roleassign accountcreate accountlink frinsert setlabels groupinsert}
# STRIPE_MOCK=1 also runs stripe-mock (installed with go install into the scratch
# directory, never into the repository) and compares account links with it.
STRIPE_MOCK=${STRIPE_MOCK:-0}
STRIPE_MOCK_VERSION=${STRIPE_MOCK_VERSION:-v0.203.0}

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

# pg_store SCHEMA...: the PostgreSQL the run writes to, in STORE. Without STORE it starts a
# cluster of its own in the scratch directory (.ci/postgres.sh with PG_DURABLE=1: fsync and
# synchronous_commit on, as a deployment runs), pinned with the servers, and sets STORE to
# its URL and own_pg. At exit that cluster goes whole; in a database of yours only the
# run's SCHEMAs are dropped. Sets pg_settings (version and durability, for the header) and
# sep (what appends a parameter to STORE).
pg_store() {
	pg_schemas=("$@")
	own_pg="" pg_url=$STORE # the callers append to STORE; the schemas are dropped through pg_url
	trap pg_cleanup EXIT
	if [ -z "$STORE" ]; then
		chmod 755 "$tmp" # the cluster's owner (postgres, under root) works in it
		export UNDERSTUDY_PG_DIR=$tmp/pg
		own_pg=1 # before the start: a cluster that fails halfway is stopped too
		PG_DURABLE=1 "${pin_server[@]}" "$root/.ci/postgres.sh" start >/dev/null
		STORE=$("$root/.ci/postgres.sh" url) pg_url=$STORE
	fi
	pg_settings=$(psql -Atc "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'server_version')" "$STORE" 2>/dev/null || echo unknown)
	sep='?'
	case $STORE in *\?*) sep='&' ;; esac
}

# pg_cleanup: pg_store's exit trap, then cleanup's. The cluster stops before cleanup
# removes the scratch directory it lives in.
pg_cleanup() {
	if [ -n "$own_pg" ]; then
		"$root/.ci/postgres.sh" stop
	else
		local s
		for s in "${pg_schemas[@]}"; do
			psql -qc "DROP SCHEMA IF EXISTS $s CASCADE" "$pg_url" >/dev/null 2>&1 || true
		done
	fi
	cleanup
}

# median: the median of the numbers on standard input, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# start NAME CMD...: starts a server on a free port (remembered for the cleanup).
start() {
	local name=$1
	shift
	"${pin_server[@]}" "$@" --addr 127.0.0.1:0 2>"$tmp/$name.log" >/dev/null &
	pids+=($!)
}

# addr NAME: the address NAME logged once listening (stripe-mock words it its own way).
addr() {
	for _ in $(seq 400); do
		local a
		a=$( (grep -o '"addr":"[^"]*"' "$tmp/$1.log" | head -1 | cut -d'"' -f4; grep -o 'Listening for HTTP at address: [0-9.:]*' "$tmp/$1.log" | head -1 | awk '{print $NF}') || true)
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

# make_rules URL: RULES forwarding rules in bench-project-2 for the setLabels chains, their
# names in $tmp/rules.
make_rules() {
	local salt=$RANDOM
	for i in $(seq "$RULES"); do
		curl -fsS -o /dev/null "$1/compute/v1/projects/bench-project-2/global/forwardingRules" -H "Authorization: Bearer bench-token" \
			-H "Content-Type: application/json" -d "{\"name\":\"lbl-$salt-$i\",\"portRange\":\"443-443\"}"
		echo "lbl-$salt-$i" >>"$tmp/rules"
	done
}

# prepare_op URL OP: what OP needs on understudy at URL (after a reset): accounts for the
# account links, rules for the setLabels chains.
prepare_op() {
	: >"$tmp/accounts"
	: >"$tmp/rules"
	case $2 in
	accountlink) make_accounts "$1" ;;
	setlabels) make_rules "$1" ;;
	esac
}

# build_baseline OUT: builds the bare Echo server the ratios are taken against.
build_baseline() {
	(cd "$root/bench" && go build -o "$1" ./baseline)
}

# build_ceiling OUT: builds the Echo+kin ceiling (Echo and kin-openapi's validation only).
build_ceiling() {
	(cd "$root/bench" && go build -o "$1" ./ceiling)
}

# start_stripe_mock: installs stripe-mock STRIPE_MOCK_VERSION into the scratch directory and
# starts it as "stripemock", on free loopback ports (its HTTPS one unused). It serves no
# /v2/ paths: its account links are the v1 ones (POST /v1/account_links, form-encoded), the
# comparable endpoint (op accountlink_v1 in ops.lua).
start_stripe_mock() {
	GOBIN="$tmp/stripe-mock-bin" go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION"
	"${pin_server[@]}" "$tmp/stripe-mock-bin/stripe-mock" -http-addr 127.0.0.1: -https-addr 127.0.0.1: >"$tmp/stripemock.log" 2>&1 &
	pids+=($!)
}

# attack OP URL [standin]: one wrk run; prints "req/s p50_ms p99_ms non2xx". With a third
# argument the server is a stand-in (baseline, ceiling) that keeps no state: the requests
# have the same shape but do not depend on its answers.
attack() {
	local out
	out=$(WRK_OP=$1 WRK_SALT=$RANDOM$RANDOM WRK_ACCOUNTS="$tmp/accounts" WRK_RULES="$tmp/rules" WRK_STANDIN=${3:-} \
		"${pin_load[@]}" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$here/ops.lua" "$2")
	awk '
		function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
		$1 == "50%" { p50 = ms($2) }
		$1 == "99%" { p99 = ms($2) }
		/^Requests\/sec:/ { rps = $2 }
		/Non-2xx or 3xx responses:/ { bad = $NF }
		END { printf "%.0f %.2f %.2f %d\n", rps, p50, p99, bad }' <<<"$out"
}

