#!/usr/bin/env bash
# Runs the shell blocks of README.md and of every page of docs/ as a new user would type them
# into a terminal: each page's blocks in order, in one shell (dash for blocks labelled `sh`,
# which must be POSIX; bash for `bash`), in a directory of its own, with a freshly built
# `understudy` first on PATH and a fresh server of it behind the page's 127.0.0.1:8080. The
# shell stops at the first command that fails (set -e; in bash, pipefail too: POSIX sh has
# none), and curl fails on any HTTP error. A page's blocks share one label.
#
# Addresses: 127.0.0.1:8080 and localhost:8080 are the page's server; any other port after
# 127.0.0.1, localhost or 0.0.0.0 (a second server a block starts) becomes a free one.
# Whatever a page started is stopped when it ends.
#
# A block that cannot run here is marked on the line before its fence, saying why and what
# runs it instead (a file of this repository, which must exist):
#
#   <!-- not run: needs a Docker daemon; run by: .ci/smoke-image.sh (make image-test) -->
#
# Blocks that call gcloud (the Google Cloud CLI) are skipped where it is not installed, and
# fail the run under CI=true. Go, js, yaml and json blocks are held by understudytest's
# TestDocBlocks (make unit).
set -euo pipefail
cd "$(dirname "$0")/.."

# A page's blocks get this many seconds in all (one of them may download and build a tool).
page_timeout=${PAGE_TIMEOUT:-300}

scratch=$(mktemp -d)
groups=()
cleanup() {
  for g in "${groups[@]}"; do kill -- "-$g" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

mkdir -p "$scratch/bin"
go build -o "$scratch/bin/understudy" ./cmd/understudy
export PATH="$scratch/bin:$PATH"

gcloud=yes
if ! command -v gcloud >/dev/null 2>&1; then
  if [[ ${CI:-} == true ]]; then
    echo "gcloud (Debian's google-cloud-cli) is not installed: the blocks that use it cannot run" >&2
    exit 1
  fi
  echo "gcloud is not installed: skipping the blocks that use it" >&2
  gcloud=
fi

# free_port prints a loopback port nothing listens on, below Linux's ephemeral ports (32768
# up): a port the kernel may also give a client socket can be taken before a block's server
# binds it.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

# blocks prints each fenced block of a page as: label, fence line, marker, text, separated by
# the unit separator, each block ending with a NUL.
blocks() {
  awk '
    !on && /^```/ { on = 1; lang = substr($0, 4); start = NR; text = ""; mark = (prev ~ /^<!-- not run/) ? prev : ""; next }
    on && /^```$/ { on = 0; printf "%s\037%d\037%s\037%s%c", lang, start, mark, text, 0; prev = $0; next }
    on { text = text $0 "\n"; next }
    { prev = $0 }
  ' "$1"
}

failed=0
ran=0
notrun=0
for page in README.md docs/*.md; do
  script="$scratch/page.sh"
  : >"$script"
  label=
  count=0
  while IFS=$'\037' read -r -d '' lang line mark text; do
    [[ $lang == sh || $lang == bash ]] || continue
    if [[ -n $mark ]]; then
      if [[ ! $mark =~ ^'<!-- not run: '(.+)'; run by: '(.+)' -->'$ ]]; then
        echo "$page:$line: write the marker as <!-- not run: WHY; run by: WHAT -->" >&2
        failed=1
        continue
      fi
      by=${BASH_REMATCH[2]} found=
      for word in $by; do [[ $word == */* && -e $word ]] && found=$word; done
      if [[ -z $found ]]; then
        echo "$page:$line: the marker's \"run by\" names no file of this repository: $by" >&2
        failed=1
      fi
      notrun=$((notrun + 1))
      continue
    fi
    if [[ -z $gcloud ]] && grep -qw gcloud <<<"$text"; then
      echo "$page:$line: skipped (gcloud is not installed)" >&2
      continue
    fi
    if [[ -n $label && $lang != "$label" ]]; then
      echo "$page:$line: a $lang block on a page of $label blocks: label them alike" >&2
      failed=1
      continue
    fi
    label=$lang
    count=$((count + 1))
    printf '__block=%s:%s; echo "$__block" >.block\n%s\n' "$page" "$line" "$text" >>"$script"
  done < <(blocks "$page")
  ((count > 0)) || continue

  dir="$scratch/pages/$page"
  mkdir -p "$dir"
  # The server and the page's shell each lead a process group of their own (setsid), so that
  # stopping the group stops whatever they started.
  setsid understudy --addr 127.0.0.1:0 --log-level warn 2>"$dir/.server.log" &
  server=$!
  groups+=("$server")
  addr=
  for _ in $(seq 1 100); do
    addr=$(grep -o '"addr":"[^"]*"' "$dir/.server.log" | head -n1 | cut -d'"' -f4) && [[ -n $addr ]] && break
    sleep 0.05
  done
  [[ -n $addr ]] || { cat "$dir/.server.log" >&2; echo "$page: the server did not start" >&2; exit 1; }

  # The page's addresses, then every other port a block names.
  sed -i -E "s/(127\.0\.0\.1|localhost):8080\b/\1:${addr##*:}/g" "$script"
  for port in $(grep -oE '(127\.0\.0\.1|localhost|0\.0\.0\.0):[0-9]+\b' "$script" | cut -d: -f2 | sort -u); do
    [[ $port == "${addr##*:}" ]] && continue
    sed -i -E "s/(127\.0\.0\.1|localhost|0\.0\.0\.0):$port\b/\1:$(free_port)/g" "$script"
  done

  shell=dash opts='set -eu'
  [[ $label == bash ]] && shell=bash opts='set -euo pipefail'
  {
    printf '%s\n' "$opts"
    printf '%s\n' 'curl() { command curl --fail-with-body "$@"; }'
    printf '%s\n' 'trap '\''rc=$?; [ $rc -eq 0 ] || echo "failed (exit $rc) in the block at $__block" >&2'\'' EXIT'
    cat "$script"
  } >"$dir/.blocks.sh"
  (cd "$dir" && exec setsid timeout "$page_timeout" "$shell" .blocks.sh) </dev/null >"$dir/.out" 2>&1 &
  session=$!
  groups+=("$session")
  wait "$session" && rc=0 || rc=$?
  if ((rc == 124)); then
    # Timed out: every understudy still running (the page's server and any a block started)
    # prints its goroutines to its log as SIGQUIT makes it stop, to show what it waited on.
    pkill -QUIT -x understudy -g "$session,$server" 2>/dev/null || true
    sleep 1
  fi
  # Stop whatever the page started (servers in the background), then its server.
  kill -- "-$session" "-$server" 2>/dev/null || true
  if ((rc != 0)); then
    echo "$page: its $label blocks failed (exit $rc):" >&2
    ((rc == 124)) && echo "$page: timed out after $page_timeout s in the block at $(cat "$dir/.block" 2>/dev/null)" >&2
    cat "$dir/.out" >&2
    # The logs of the page's servers: the reason a server did not start, or a goroutine dump.
    for log in "$dir/.server.log" "$dir"/*.log; do
      [[ -s $log ]] || continue
      echo "--- ${log#"$dir/"} (its last 300 lines)" >&2
      tail -n 300 "$log" >&2
    done
    failed=1
  else
    echo "$page: $count $label blocks ran ($shell)"
    ran=$((ran + count))
  fi
done
((ran > 0)) || { echo "no shell block ran" >&2; exit 1; }
echo "docs: $ran shell blocks ran against fresh servers, $notrun marked as run elsewhere"
exit "$failed"
