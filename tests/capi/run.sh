#!/usr/bin/env bash
# The C side of the C ABI's tests (the Go side is `go test ./capi`).
#
#   tests/capi/run.sh [quick]  what build/test.sh runs (a minute or two, most
#                              of it building the library): build/lib.sh; the
#                              header alone as C11 and C++17; every example,
#                              misuse.c, lifecycle.c, cq.c and stress.c compiled
#                              against only the installed weida.h and
#                              libweida (found through weida.pc), one example
#                              linked statically; all run, then run again
#                              built with AddressSanitizer and UBSan; the
#                              stress test for 3 s. queue.c runs against
#                              `weida broker` (cmd/weida, built here), a
#                              fresh broker for every run.
#   tests/capi/run.sh heavy    quick, plus: the stress test for 20 s; every
#                              example and test program under valgrind, on
#                              a library built with `go build -tags valgrind`
#                              (see go-runtime.supp); the library built with
#                              `go build -asan` so Go's accesses to C memory
#                              are checked too, with the examples, the tests
#                              and 5 s of stress on it (several minutes:
#                              valgrind runs Go ~50x slower, and each
#                              special build is a full rebuild).
#   tests/capi/run.sh bench    the C benchmark and its Go twin, side by side.
#
# STRESS_SECONDS overrides the stress duration. Every program runs under a
# timeout, so a deadlock fails the run instead of hanging it.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-quick}"
case "$mode" in quick | heavy | bench) ;; *)
	echo "usage: $0 [quick|heavy|bench]" >&2
	exit 2
	;;
esac

out="${WEIDA_OUT:-$PWD/build/out}"
WEIDA_OUT="$out" ./build/lib.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

export PKG_CONFIG_PATH="$out/lib/pkgconfig"
read -r -a weida_cflags <<<"$(pkg-config --cflags weida)"
read -r -a weida_libs <<<"$(pkg-config --libs weida)"
rpath="-Wl,-rpath,$out/lib"
warn=(-Wall -Wextra -Werror)
examples=(reqrep pushpull pubsub pair survey bus cursors radio local queue)
programs=("${examples[@]}" misuse lifecycle cq guarantees logging pathreports)

# cc NAME SOURCE EXTRA... — builds $work/NAME against the installed library.
cc_prog() {
	local name=$1 src=$2
	shift 2
	gcc -std=c11 -g "${warn[@]}" "${weida_cflags[@]}" -Ibindings/c-examples -Itests/capi "$@" \
		-o "$work/$name" "$src" "${weida_libs[@]}" -lpthread -lm "$rpath"
}
source_of() {
	case $1 in misuse | lifecycle | cq | guarantees | logging | pathreports | stress | bench) echo "tests/capi/$1.c" ;; *) echo "bindings/c-examples/$1.c" ;; esac
}
run() { timeout 300 "$@"; }

# with_broker CMD... — runs CMD with a queue's address appended, served by
# a `weida broker` started for this run alone, so a failed run leaves
# nothing queued for the next. The broker prints the address once bound.
with_broker() {
	local pid url="" tries=0 status=0
	"$work/weida" broker weida://127.0.0.1:0/jobs >"$work/broker.out" 2>"$work/broker.err" &
	pid=$!
	until url="$(head -n 1 "$work/broker.out")" && [ -n "$url" ]; do
		if ! kill -0 "$pid" 2>/dev/null || [ $((tries += 1)) -gt 200 ]; then
			echo "capi: weida broker printed no address within 10 s" >&2
			cat "$work/broker.err" >&2
			kill "$pid" 2>/dev/null || true
			return 1
		fi
		sleep 0.05
	done
	"$@" "$url" || status=$?
	if [ "$status" != 0 ]; then
		echo "capi: the broker's log:" >&2
		cat "$work/broker.err" >&2
	fi
	kill "$pid"
	wait "$pid" || true
	return "$status"
}
# run_program NAME CMD... — runs CMD, which runs program NAME (perhaps under
# valgrind), with a broker for the one that needs it.
run_program() {
	local name=$1
	shift
	case $name in queue) with_broker run "$@" ;; *) run "$@" ;; esac
}

if [ "$mode" = bench ]; then
	cc_prog bench "$(source_of bench)" -O2
	echo "== C through libweida"
	run "$work/bench" "${BENCH_SCALE:-1}"
	echo "== Go, the same operations"
	go test -run '^$' -bench 'GoCall$' -benchtime "$((1000000 * ${BENCH_SCALE:-1}))x" ./tests/capi/gobench | grep '^Benchmark'
	go test -run '^$' -bench 'Go(Send|Request)' -benchtime "$((20000 * ${BENCH_SCALE:-1}))x" ./tests/capi/gobench | grep '^Benchmark'
	exit 0
fi

echo "== the header alone: C11 and C++17, -Wall -Wextra -Werror -pedantic"
printf '#include "weida.h"\nint main(void) { return weida_abi_version() == WEIDA_ABI_VERSION ? 0 : 1; }\n' >"$work/alone.c"
cp "$work/alone.c" "$work/alone.cpp"
gcc -std=c11 -pedantic "${warn[@]}" "${weida_cflags[@]}" -o "$work/alone_c" "$work/alone.c" "${weida_libs[@]}" "$rpath"
g++ -std=c++17 -pedantic "${warn[@]}" "${weida_cflags[@]}" -o "$work/alone_cpp" "$work/alone.cpp" "${weida_libs[@]}" "$rpath"
run "$work/alone_c" && run "$work/alone_cpp"

echo "== examples, misuse, lifecycle and stress against the shared library"
go build -o "$work/weida" ./cmd/weida
for p in "${programs[@]}"; do cc_prog "$p" "$(source_of "$p")"; done
cc_prog stress "$(source_of stress)" -O2
for p in "${programs[@]}"; do run_program "$p" "$work/$p"; done

echo "== an example linked statically (libweida.a)"
gcc -std=c11 "${warn[@]}" "${weida_cflags[@]}" -Ibindings/c-examples -o "$work/reqrep_static" \
	bindings/c-examples/reqrep.c "$out/lib/libweida.a" -lpthread -lm
run "$work/reqrep_static"

# AddressSanitizer (with LeakSanitizer) and UBSan on the C side. The Go
# runtime needs no ASAN_OPTIONS: it allocates with mmap, which ASan does not
# track, and LeakSanitizer does not scan the Go heap — so C memory held only
# by Go (a msg or request payload whose handle was never closed) is
# reported as a leak, which is the leak a C caller can make.
echo "== examples and tests built with -fsanitize=address,undefined"
for p in "${programs[@]}"; do
	cc_prog "asan_$p" "$(source_of "$p")" -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
	run_program "$p" "$work/asan_$p"
done

echo "== stress: 8 blocking + 8 callback threads"
run "$work/stress" "${STRESS_SECONDS:-$([ "$mode" = heavy ] && echo 20 || echo 3)}"

# link_against DIR PREFIX CFLAGS... — builds every program as PREFIX_NAME
# against the libweida.so in DIR instead of the installed one.
link_against() {
	local dir=$1 prefix=$2 p
	shift 2
	for p in "${programs[@]}" stress; do
		gcc -std=c11 -g "${warn[@]}" "${weida_cflags[@]}" -Ibindings/c-examples -Itests/capi "$@" \
			-o "$work/${prefix}_$p" "$(source_of "$p")" -L"$dir" -lweida -lpthread -lm -Wl,-rpath,"$dir"
	done
}

if [ "$mode" = heavy ]; then
	# Memcheck cannot follow the Go runtime on its own: the library it
	# watches is built with -tags valgrind, so the runtime registers its
	# goroutine stacks; go-runtime.supp silences errors raised inside
	# libweida.so and the Go heap's uncollected garbage, and vgcheck.py
	# fails the run on any error raised outside it and on any definite leak
	# (see both files).
	echo "== valgrind memcheck (the library built with go build -tags valgrind)"
	mkdir -p "$work/vg_lib"
	CGO_ENABLED=1 go build -tags valgrind -buildmode=c-shared -o "$work/vg_lib/libweida.so" ./capi
	link_against "$work/vg_lib" vg
	for p in "${programs[@]}"; do
		# valgrind 3.19 predates some DWARF 5 forms Go emits; its complaint
		# concerns line numbers only, so it is filtered out of the log.
		run_program "$p" valgrind -q --xml=yes --xml-file="$work/$p.vg.xml" --suppressions=tests/capi/go-runtime.supp \
			--leak-check=full --show-leak-kinds=definite "$work/vg_$p" 2> >(grep -v 'DW_FORM' >&2)
		python3 tests/capi/vgcheck.py "$work/$p.vg.xml"
	done

	echo "== the library built with go build -asan: Go's accesses to C memory checked"
	mkdir -p "$work/asan_lib"
	CGO_ENABLED=1 go build -asan -buildmode=c-shared -o "$work/asan_lib/libweida.so" ./capi
	link_against "$work/asan_lib" goasan -fsanitize=address -fno-omit-frame-pointer
	for p in "${programs[@]}"; do run_program "$p" "$work/goasan_$p"; done
	run "$work/goasan_stress" 5
fi
echo "capi: $mode run passed"
