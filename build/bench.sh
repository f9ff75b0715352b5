#!/usr/bin/env bash
# Benchmarks weida against raw quic-go, NATS and ZeroMQ (issue 10) and
# writes the report. The harness is its own Go module in tests/bench, so
# NATS, ZeroMQ and the plotting library never enter weida's go.mod.
#
#   ./build/bench.sh           the full run (several minutes): writes
#                              docs/BENCHMARKS.md, docs/bench/*.png and
#                              docs/bench/results.json
#   ./build/bench.sh --smoke   every workload on every system with tiny
#                              counts, plus the module's vet and tests;
#                              fails if anything errors; writes nothing
#                              into the repository
#   ./build/bench.sh --report  rewrites docs/BENCHMARKS.md and the plots from
#                              docs/bench/results.json (after editing
#                              tests/bench/analysis.md), measuring nothing
#
# Needs Go and gcc; installs libzmq3-dev (and pkg-config) with apt-get when
# missing. The bindings' rows need python3 and node on PATH and are skipped
# (said in the report) without them; their server processes are the weida
# CLI, built from this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

mode=full
case "${1:-}" in
--smoke) mode=smoke ;;
--report) mode=report ;;
"") ;;
*)
	echo "usage: $0 [--smoke | --report]" >&2
	exit 2
	;;
esac

if ! pkg-config --exists libzmq 2>/dev/null; then
	echo "== installing libzmq3-dev (ZeroMQ, driven through cgo)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq libzmq3-dev pkg-config >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd tests/bench

if [ "$mode" = report ]; then
	go build -o "$work/weida-bench" ./cmd/weida-bench
	"$work/weida-bench" report -in "$root/docs/bench/results.json" -md "$root/docs/BENCHMARKS.md" -plots "$root/docs/bench" -analysis analysis.md
	echo "== rewrote docs/BENCHMARKS.md and docs/bench/*.png from docs/bench/results.json"
	exit 0
fi

echo "== go vet (tests/bench)"
go vet ./...
# -short: the harness's own end-to-end test is the smoke run below.
echo "== go test -race -short (tests/bench)"
go test -race -short -count=1 ./...
echo "== building the harness"
go build -o "$work/weida-bench" ./cmd/weida-bench
# The bindings' rows (bindings/python/bench.py, bindings/node/bench.js) run
# against a libweida.so built from this checkout: Python finds the package
# through PYTHONPATH and the library through WEIDA_LIBRARY; Node runs
# bench.js from a copy of bindings/node staged in $work with its addon
# compiled as build/npm.sh compiles it. Whatever cannot be built is skipped,
# with the reason in the report, and the rest of the run goes on.
bindings=()
stage_bindings() {
	echo "== building libweida.so for the bindings' rows"
	if ! (cd "$root" && CGO_ENABLED=1 go build -buildmode=c-shared -o "$work/lib/libweida.so" ./capi); then
		bindings=(-weida-lib-missing "building libweida.so (go build -buildmode=c-shared ./capi) failed")
		return
	fi
	bindings=(-weida-lib "$work/lib/libweida.so")
	local node_include="${NODE_INCLUDE:-/usr/include/node}"
	if [ ! -f "$root/bindings/node/bench.js" ]; then
		bindings+=(-node-missing "bindings/node/bench.js does not exist in this checkout")
	elif ! command -v node >/dev/null; then
		bindings+=(-node-missing "no node on PATH")
	elif [ ! -f "$node_include/node_api.h" ]; then
		bindings+=(-node-missing "no node_api.h in $node_include to compile the addon against (set NODE_INCLUDE)")
	else
		echo "== staging bindings/node with its addon"
		local pkg="$work/node/weida" platform
		platform="$(node -p 'process.platform + "-" + process.arch')"
		mkdir -p "$pkg"
		(cd "$root/bindings/node" && tar --exclude=node_modules --exclude=prebuilds -cf - .) | (cd "$pkg" && tar -xf -)
		mkdir -p "$pkg/prebuilds/$platform"
		cp "$work/lib/libweida.so" "$pkg/prebuilds/$platform/"
		# lib/native.js loads the addon through node-gyp-build (npm's cache first).
		if ! (cd "$pkg" && npm install --prefer-offline --omit=dev --ignore-scripts --no-package-lock \
			--no-audit --no-fund --silent); then
			bindings+=(-node-missing "installing bindings/node's dependency node-gyp-build failed")
		elif gcc -std=c11 -O2 -fvisibility=hidden -shared -fPIC -I"$node_include" -I"$root/include" \
			"$root"/bindings/node/src/*.c -L"$pkg/prebuilds/$platform" -lweida -Wl,-rpath,'$ORIGIN' \
			-o "$pkg/prebuilds/$platform/weida.node"; then
			bindings+=(-node-package "$pkg")
		else
			bindings+=(-node-missing "compiling the Node addon (bindings/node/src) failed")
		fi
	fi
}
stage_bindings || true
[ ${#bindings[@]} -gt 0 ] || bindings=(-weida-lib-missing "staging the bindings failed")
# The bindings-vs-process rows run every client (Go, Python, Node) against
# `weida serve --echo` and `--sink` processes of the CLI built here.
echo "== building the weida CLI for the bindings' server processes"
if (cd "$root" && go build -o "$work/bin/weida" ./cmd/weida); then
	bindings+=(-weida-cli "$work/bin/weida")
else
	bindings+=(-weida-cli-missing "building the weida CLI (go build ./cmd/weida) failed")
fi

if [ "$mode" = smoke ]; then
	echo "== smoke run: every workload, tiny counts"
	"$work/weida-bench" run -smoke -repo "$root" "${bindings[@]}" -out "$work/results.json"
	"$work/weida-bench" report -in "$work/results.json" -md "$work/BENCHMARKS.md" -plots "$work/bench" -analysis analysis.md
	echo "== smoke run passed: every workload ran on every system and the report was written"
	exit 0
fi

echo "== full run (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
"$work/weida-bench" run -repo "$root" "${bindings[@]}" -out "$work/results.json"
mkdir -p "$root/docs/bench"
"$work/weida-bench" report -in "$work/results.json" -md "$root/docs/BENCHMARKS.md" -plots "$root/docs/bench" -analysis analysis.md
cp "$work/results.json" "$root/docs/bench/results.json"
echo "== wrote docs/BENCHMARKS.md, docs/bench/*.png and docs/bench/results.json"
