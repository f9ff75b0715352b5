#!/usr/bin/env bash
# The C side of the C ABI's tests (the Go side is `go test ./capi`).
#
#   tests/capi/run.sh [quick]  what build/test.sh runs (a minute or two, most
#                              of it building the library): build/lib.sh; the
#                              header alone as C11 and C++17; every example,
#                              misuse.c, lifecycle.c and stress.c compiled
#                              against only the installed weida.h and
#                              libweida (found through weida.pc), one example
#                              linked statically; all run, then run again
#                              built with AddressSanitizer and UBSan; the
#                              stress test for 3 s.
#   tests/capi/run.sh heavy    quick, plus: the stress test for 20 s; every
#                              example and test program under valgrind;
#                              the library itself built with `go build -asan`
#                              so Go's accesses to C memory are checked too,
#                              with the examples, the tests and 5 s of stress
#                              on it (several minutes: valgrind runs Go ~50x
#                              slower, and the -asan build is a full rebuild).
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
examples=(reqrep pushpull pubsub pair survey bus cursors)
programs=("${examples[@]}" misuse lifecycle)

# cc NAME SOURCE EXTRA... — builds $work/NAME against the installed library.
cc_prog() {
	local name=$1 src=$2
	shift 2
	gcc -std=c11 -g "${warn[@]}" "${weida_cflags[@]}" -Ibindings/c-examples -Itests/capi "$@" \
		-o "$work/$name" "$src" "${weida_libs[@]}" -lpthread -lm "$rpath"
}
source_of() {
	case $1 in misuse | lifecycle | stress | bench) echo "tests/capi/$1.c" ;; *) echo "bindings/c-examples/$1.c" ;; esac
}
run() { timeout 300 "$@"; }

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
for p in "${programs[@]}"; do cc_prog "$p" "$(source_of "$p")"; done
cc_prog stress "$(source_of stress)" -O2
for p in "${programs[@]}"; do run "$work/$p"; done

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
	run "$work/asan_$p"
done

echo "== stress: 8 blocking + 8 callback threads"
run "$work/stress" "${STRESS_SECONDS:-$([ "$mode" = heavy ] && echo 20 || echo 3)}"

if [ "$mode" = heavy ]; then
	# Memcheck cannot follow the Go runtime: go-runtime.supp silences errors
	# raised inside libweida.so, and vgcheck.py fails the run on any error
	# raised outside it and on any definite leak (see both files).
	echo "== valgrind memcheck"
	for p in "${programs[@]}"; do
		# valgrind 3.19 predates some DWARF 5 forms Go emits; its complaint
		# concerns line numbers only, so it is filtered out of the log.
		run valgrind -q --xml=yes --xml-file="$work/$p.vg.xml" --suppressions=tests/capi/go-runtime.supp \
			--leak-check=full --show-leak-kinds=definite "$work/$p" 2> >(grep -v 'DW_FORM' >&2)
		python3 tests/capi/vgcheck.py "$work/$p.vg.xml"
	done

	echo "== the library built with go build -asan: Go's accesses to C memory checked"
	mkdir -p "$work/asan_lib"
	CGO_ENABLED=1 go build -asan -buildmode=c-shared -o "$work/asan_lib/libweida.so" ./capi
	for p in "${programs[@]}" stress; do
		gcc -std=c11 -g "${warn[@]}" "${weida_cflags[@]}" -Ibindings/c-examples -Itests/capi -fsanitize=address \
			-fno-omit-frame-pointer -o "$work/goasan_$p" "$(source_of "$p")" \
			-L"$work/asan_lib" -lweida -lpthread -lm -Wl,-rpath,"$work/asan_lib"
	done
	for p in "${programs[@]}"; do run "$work/goasan_$p"; done
	run "$work/goasan_stress" 5
fi
echo "capi: $mode run passed"
