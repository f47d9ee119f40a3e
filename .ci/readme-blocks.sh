#!/usr/bin/env bash
# Runs the README's shell blocks that talk to a running server (those that start with
# `B=http://127.0.0.1:8080`) against a freshly built one, with curl failing on any HTTP
# error, so that the README cannot show a request the server refuses. The Go blocks are held
# to the test files by understudytest's TestREADMEGoBlocks.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT
go build -o "$scratch/understudy" ./cmd/understudy
"$scratch/understudy" --addr 127.0.0.1:0 --log-level warn 2>"$scratch/log" &
pid=$!
addr=
for _ in $(seq 1 100); do
  addr=$(grep -o '"addr":"[^"]*"' "$scratch/log" | head -n1 | cut -d'"' -f4) && [[ -n $addr ]] && break
  sleep 0.05
done
[[ -n $addr ]] || { cat "$scratch/log" >&2; echo "the server did not start" >&2; exit 1; }

# Each block, its address made the server's, in a shell whose curl fails on an HTTP error.
blocks=0
while IFS= read -r -d '' block; do
  blocks=$((blocks + 1))
  (
    cd "$scratch"
    curl() { command curl --fail-with-body "$@"; }
    eval "${block//127.0.0.1:8080/$addr}"
  ) >"$scratch/out" || { echo "README block $blocks failed:" >&2; printf '%s\n' "$block" >&2; cat "$scratch/out" >&2; exit 1; }
done < <(awk '/^```sh$/ { on = 1; b = ""; next } on && /^```$/ { on = 0; if (b ~ /^B=http:\/\/127\.0\.0\.1:8080/) printf "%s%c", b, 0; next } on { b = b $0 "\n" }' README.md)
((blocks > 0)) || { echo "the README has no block that talks to a server" >&2; exit 1; }
echo "README: $blocks shell blocks ran against $addr"
