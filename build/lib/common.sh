# Shell functions shared by the build and test scripts. Source it, from the
# repository root, in a bash script that runs with `set -euo pipefail`:
#
#   . build/lib/common.sh
#
# It defines functions only; sourcing it runs nothing.

# build_lib_if_stale <out> <who>: builds <out>/lib/libweida.so with
# build/lib.sh unless it is newer than every source it is built from, so a
# package build does not pay for a library that is already there. <who>
# names the caller in the "up to date" line.
build_lib_if_stale() {
	local out="$1" who="$2"
	local lib="$out/lib/libweida.so" newer
	newer="$(find capi core include internal go.mod go.sum VERSION -newer "$lib" -type f \
		\( -name '*.go' -o -name '*.c' -o -name '*.h' -o -name 'go.*' -o -name VERSION \) ! -name '*_test.go' -print -quit 2>/dev/null || true)"
	if [ ! -f "$lib" ] || [ -n "$newer" ]; then
		WEIDA_OUT="$out" ./build/lib.sh
	else
		echo "$who: $lib is up to date"
	fi
}

# setup_failed <suite> <what>: a binding test run could not get as far as
# its tests. It counts as one failure, in the same closing line the tests
# print, so a caller reading only the last line still sees it.
setup_failed() {
	echo "$1: $2 failed" >&2
	echo "0 passed, 1 failed"
	exit 1
}

# path_without_go: $PATH with every entry that holds a go binary left out,
# for running what must work where Go is not installed.
path_without_go() {
	local kept="" dir
	local -a entries
	IFS=: read -r -a entries <<<"$PATH"
	for dir in "${entries[@]}"; do
		if [ -n "$dir" ] && [ ! -x "$dir/go" ]; then
			kept="${kept:+$kept:}$dir"
		fi
	done
	printf '%s\n' "$kept"
}

# begin_binding_tests <suite> <build script> <what it builds> <dist glob>:
# the steps every tests/<suite>/run.sh takes before its tests, run from the
# repository root while Go is still on PATH. Sets four variables for the
# rest of the run:
#   repo      the repository root, for after the run leaves it;
#   work      a temporary directory, removed when the script exits, that
#             holds the weida CLI (the broker tests start it as $work/weida);
#   artefact  the one file matching <dist glob> the build script left;
#   nogo      $PATH without Go, checked to find no go.
# Any step that fails ends the run through setup_failed.
begin_binding_tests() {
	local suite="$1" build="$2" what="$3" glob="$4"
	local -a found
	repo="$PWD"
	work="$(mktemp -d)"
	trap 'rm -rf "$work"' EXIT
	"$build" || setup_failed "$suite" "building $what"
	go build -o "$work/weida" ./cmd/weida || setup_failed "$suite" "building the weida CLI"
	mapfile -t found < <(compgen -G "$glob" || true)
	[ ${#found[@]} -eq 1 ] || setup_failed "$suite" "finding exactly one $glob"
	artefact="${found[0]}"
	nogo="$(path_without_go)"
	! PATH="$nogo" command -v go >/dev/null || setup_failed "$suite" "removing go from PATH"
}
