#!/usr/bin/env bash
# Side-by-side: the build of git revision BEFORE against the working tree (or revision
# AFTER), each against the bare Echo baseline and the Echo+kin ceiling (bench/ceiling),
# alternated in one run so that all see the same machine.
# For each operation and round: baseline, ceiling, before, after, each a fresh wrk run of
# DURATION against a server reset to its seed (as run.sh). Prints each build's req/s, p99
# and ratios to both, and after/before. STRIPE_MOCK=1 adds stripe-mock's v1 account links
# to the accountlink row (see run.sh).
#
#   bench/wrk/ab.sh 1de59aa
#   bench/wrk/ab.sh 1de59aa HEAD~2
#   ROUNDS=5 DURATION=5s OPS="frinsert" PIN=0 bench/wrk/ab.sh HEAD~3
set -euo pipefail

BEFORE=${1:?usage: ab.sh BEFORE-REVISION [AFTER-REVISION]}
AFTER=${2:-}
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
# shellcheck source=bench/wrk/common.sh
. "$(dirname "$0")/common.sh"

git -C "$root" worktree add --detach -q "$tmp/before-src" "$BEFORE"
after_src=$root
if [ -n "$AFTER" ]; then
	git -C "$root" worktree add --detach -q "$tmp/after-src" "$AFTER"
	after_src=$tmp/after-src
fi
trap 'git -C "$root" worktree remove --force "$tmp/before-src" 2>/dev/null || true; [ -z "$AFTER" ] || git -C "$root" worktree remove --force "$tmp/after-src" 2>/dev/null || true; cleanup' EXIT
(cd "$tmp/before-src" && go build -o "$tmp/before" ./cmd/understudy)
(cd "$after_src" && go build -o "$tmp/after" ./cmd/understudy)
build_baseline "$tmp/baseline"
build_ceiling "$tmp/ceiling"

start before "$tmp/before" --log-level warn --compute-operation-mode immediate
start after "$tmp/after" --log-level warn --compute-operation-mode immediate
start baseline "$tmp/baseline"
start ceiling "$tmp/ceiling"
declare -A url
for t in before after baseline ceiling; do url[$t]=http://$(addr $t); done
if [ "$STRIPE_MOCK" = 1 ]; then
	start_stripe_mock
	url[stripemock]=http://$(addr stripemock)
fi

prepare() { # TARGET OP
	curl -fsS -X POST "${url[$1]}/_understudy/reset" >/dev/null
	prepare_op "${url[$1]}" "$2"
}

: >"$tmp/notes"

echo "wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $(nproc) CPUs, $(date -u '+%F %H:%M') UTC, $CONNECTIONS connections, $DURATION runs, $ROUNDS rounds; pinning: $pinned"
if [ -n "$AFTER" ]; then
	echo "before: $(git -C "$root" rev-parse --short "$BEFORE"); after: $(git -C "$root" rev-parse --short "$AFTER")"
else
	echo "before: $(git -C "$root" rev-parse --short "$BEFORE"); after: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' + uncommitted changes')"
fi
echo
echo "| operation | Echo req/s | Echo+kin req/s | before req/s | before p99 | after req/s | after p99 | before / Echo | after / Echo | before / Echo+kin | after / Echo+kin | after/before |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for op in $OPS; do
	: >"$tmp/r.baseline" && : >"$tmp/r.ceiling" && : >"$tmp/r.before" && : >"$tmp/r.after" && : >"$tmp/r.stripemock"
	for _ in $(seq "$ROUNDS"); do
		: >"$tmp/accounts" && : >"$tmp/rules"
		attack "$op" "${url[baseline]}" standin >>"$tmp/r.baseline"
		attack "$op" "${url[ceiling]}" standin >>"$tmp/r.ceiling"
		for t in before after; do
			prepare "$t" "$op"
			attack "$op" "${url[$t]}" >>"$tmp/r.$t"
		done
		if [ "$STRIPE_MOCK" = 1 ] && [ "$op" = accountlink ]; then
			attack accountlink_v1 "${url[stripemock]}" standin >>"$tmp/r.stripemock"
		fi
	done
	b=$(cut -d' ' -f1 "$tmp/r.baseline" | median)
	k=$(cut -d' ' -f1 "$tmp/r.ceiling" | median)
	x=$(cut -d' ' -f1 "$tmp/r.before" | median) xp=$(cut -d' ' -f3 "$tmp/r.before" | median)
	y=$(cut -d' ' -f1 "$tmp/r.after" | median) yp=$(cut -d' ' -f3 "$tmp/r.after" | median)
	bad=$(cat "$tmp/r.before" "$tmp/r.after" "$tmp/r.ceiling" | awk '{ s += $4 } END { print s + 0 }')
	awk -v op="$op" -v b="$b" -v k="$k" -v x="$x" -v xp="$xp" -v y="$y" -v yp="$yp" -v bad="$bad" \
		'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.2f ms | %.0f | %.2f ms | %.2f | %.2f | %.2f | %.2f | %.2f |%s\n", op, b, k, x, xp, y, yp, x / b, y / b, x / k, y / k, y / x, (bad > 0 ? " (" bad " non-2xx)" : "") }'
	if [ -s "$tmp/r.stripemock" ]; then
		s=$(cut -d' ' -f1 "$tmp/r.stripemock" | median) sp=$(cut -d' ' -f3 "$tmp/r.stripemock" | median)
		awk -v s="$s" -v sp="$sp" -v x="$x" -v y="$y" -v v="$STRIPE_MOCK_VERSION" \
			'BEGIN { printf "stripe-mock %s, POST /v1/account_links: %.0f req/s, p99 %.2f ms; before / stripe-mock %.2f, after / stripe-mock %.2f\n", v, s, sp, x / s, y / s }' >>"$tmp/notes"
	fi
done
if [ -s "$tmp/notes" ]; then
	echo
	cat "$tmp/notes"
fi
