#!/usr/bin/env bash
# Sets everything up and runs the demo: builds the weida CLI, serves an echo
# endpoint over QUIC on loopback, and talks to it the way a user would.
# Needs only Go; the Go module proxy supplies the dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="$PWD/bin"
mkdir -p "$bin"
echo "== building the weida CLI"
go build -o "$bin/weida" ./cmd/weida
weida="$bin/weida"

work=$(mktemp -d)
serve_pid=""
cleanup() {
	[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "serve an echo endpoint (the printed address names the server's key)"
mkfifo "$work/addr"
"$weida" serve --echo 'weida://127.0.0.1:0/echo' >"$work/addr" 2>"$work/serve.log" &
serve_pid=$!
read -r addr <"$work/addr"
echo "$ weida serve --echo weida://127.0.0.1:0/echo"
echo "$addr"

step "request: the address is the client's whole configuration"
echo "$ printf 'hello weida' | weida request '$addr'"
reply=$(printf 'hello weida' | "$weida" request "$addr")
echo "$reply"
[ "$reply" = "hello weida" ] || { echo "demo: unexpected reply" >&2; exit 1; }

step "a 16 MiB payload streams through and back byte-exact"
head -c $((16 << 20)) /dev/urandom >"$work/big"
"$weida" request "$addr" "$work/big" 2>/dev/null | cmp - "$work/big"
echo "16 MiB echoed, sha256 $(sha256sum <"$work/big" | cut -c1-16)… matches"

step "a wrong key is refused, naming the key that answered (exit 6)"
wrong="weida://sha256:$(printf '0%.0s' $(seq 64))@${addr#*@}"
set +e
printf 'x' | "$weida" request "$wrong"
code=$?
set -e
echo "exit $code"
[ "$code" = 6 ] || { echo "demo: expected exit 6" >&2; exit 1; }

step "an unserved path is refused by the server (exit 4)"
set +e
printf 'x' | "$weida" request "${addr%/echo}/nowhere"
code=$?
set -e
echo "exit $code"
[ "$code" = 4 ] || { echo "demo: expected exit 4" >&2; exit 1; }

step "the server's log"
cat "$work/serve.log"
echo
echo "demo: all steps passed"
