#!/usr/bin/env bash
# Runs the worked tasks of docs/GUIDE.md as the guide prints them and checks
# each program's output against the guide's: the two Go programs, the C
# client against `weida serve --echo`, the Python program against the wheel
# installed in a fresh venv, the Node program against the npm package
# installed into an empty project. A program's first and last output lines
# must be the guide's (the lines in between may coalesce differently).
#
#   tests/docs/guide.sh        (about a minute with warm caches; offline)
#
# Everything is built in a temporary folder (WEIDA_OUT, WEIDA_DIST), so the
# repository's build/out and dist are left alone. Needs what the bindings
# need: Go, gcc, pkg-config, python3 with venv, node and npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
work=$(mktemp -d)
server=
cleanup() {
	[ -z "$server" ] || kill "$server" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# extract writes each code block of the guide to $work/blocks/<n>.<lang>,
# and the text block that follows it (without its "$ command" lines) to
# $work/blocks/<n>.want.
python3 - "$repo/docs/GUIDE.md" "$work/blocks" <<'EOF'
import os, re, sys
text, out = open(sys.argv[1]).read(), sys.argv[2]
os.makedirs(out)
blocks = re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)
n = 0
for i, (lang, body) in enumerate(blocks):
    if lang not in ("go", "c", "python", "js"):
        continue
    n += 1
    open(f"{out}/{n}.{lang}", "w").write(body)
    for later_lang, later in blocks[i + 1:]:
        if later_lang == "text":
            lines = [l for l in later.splitlines() if not l.startswith("$ ")]
            open(f"{out}/{n}.want", "w").write("\n".join(lines) + "\n")
            break
EOF

# check NAME WANT GOT: the first and last lines of GOT are WANT's.
check() {
	local name=$1 want=$2 got=$3
	if [ "$(head -1 "$want")" != "$(head -1 "$got")" ] || [ "$(tail -1 "$want")" != "$(tail -1 "$got")" ]; then
		echo "guide: $name printed:" >&2
		cat "$got" >&2
		echo "guide: the guide says:" >&2
		cat "$want" >&2
		exit 1
	fi
	echo "guide: $name ok"
}

echo "== Go"
# The programs resolve their module graph offline (GOPROXY=off: nothing
# beyond what the repository's go.sum names), so the whole graph must be in
# the module cache first; building the repository's packages fetches only
# part of it, and on a fresh machine nothing else has.
go mod download
for src in "$work"/blocks/*.go; do
	n=$(basename "$src" .go)
	mod="$work/go-$n"
	mkdir -p "$mod"
	cp "$src" "$mod/main.go"
	cp go.sum "$mod/"
	printf 'module guide\n\ngo 1.26.0\n\nrequire github.com/weida-go/weida v0.0.0\n\nreplace github.com/weida-go/weida => %s\n' "$repo" >"$mod/go.mod"
	(cd "$mod" && GOFLAGS=-mod=mod GOPROXY=off timeout 120 go run . >"$work/$n.got")
	check "Go program $n" "$work/blocks/$n.want" "$work/$n.got"
done

echo "== the CLI and the C library"
go build -o "$work/bin/weida" ./cmd/weida
WEIDA_OUT="$work/out" build/lib.sh >"$work/lib.log" 2>&1 || { cat "$work/lib.log" >&2; exit 1; }
c=$(ls "$work"/blocks/*.c)
n=$(basename "$c" .c)
export PKG_CONFIG_PATH="$work/out/lib/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's words are separate flags
cc -std=c11 -Wall -Wextra -Werror "$c" $(pkg-config --cflags --libs weida) -Wl,-rpath,"$work/out/lib" -o "$work/ask"
mkfifo "$work/addr"
"$work/bin/weida" serve --echo 'weida://127.0.0.1:0/echo' >"$work/addr" 2>"$work/serve.err" &
server=$!
read -r addr <"$work/addr" # the served address is serve's first stdout line
"$work/ask" "$addr" 'hello from C' >"$work/$n.got"
check "C program" "$work/blocks/$n.want" "$work/$n.got"
bad=$(echo "$addr" | sed 's/sha256:[0-9a-f]*/sha256:0000000000000000000000000000000000000000000000000000000000000000/')
status=0
"$work/ask" "$bad" 'hello' 2>"$work/untrusted.err" || status=$?
[ "$status" = 6 ] && grep -q 'WEIDA_EUNTRUSTED' "$work/untrusted.err" ||
	{ echo "guide: ask with a wrong key exited $status, want 6 and WEIDA_EUNTRUSTED" >&2; exit 1; }
echo "guide: C program with a wrong key exits 6 ok"

echo "== Python"
python3 bindings/python/wheel.py --lib "$work/out/lib/libweida.so" --dist "$work/dist" >/dev/null
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index "$work"/dist/weida-*.whl
py=$(ls "$work"/blocks/*.python)
n=$(basename "$py" .python)
(cd "$work" && env PATH="$work/venv/bin:/usr/bin:/bin" timeout 60 python "$py" >"$work/$n.got")
check "Python program" "$work/blocks/$n.want" "$work/$n.got"

echo "== Node"
WEIDA_OUT="$work/out" WEIDA_DIST="$work/dist" build/npm.sh >"$work/npm.log" 2>&1 || { cat "$work/npm.log" >&2; exit 1; }
mkdir -p "$work/node"
js=$(ls "$work"/blocks/*.js)
n=$(basename "$js" .js)
(cd "$work/node" && echo '{"name":"guide","private":true}' >package.json &&
	npm install --offline --no-audit --no-fund --silent "$work"/dist/weida-*.tgz &&
	cp "$js" upper.mjs && timeout 60 node upper.mjs >"$work/$n.got")
check "Node program" "$work/blocks/$n.want" "$work/$n.got"
