#!/usr/bin/env bash
# Runs every decoder's fuzz target, each for the given budget: a count of
# inputs (150000x, what CI runs) or a duration (the heavier pass:
# ./build/fuzz.sh 5m).
#
# A count is the reliable budget. With a duration, Go 1.26's fuzz
# coordinator can end a clean run with "context deadline exceeded" at the
# deadline (go.dev/issue/75804, fixed in Go 1.27): a run that fails that way
# and writes no failing input to testdata/fuzz/ is reported and not counted
# as a failure. Any other failure prints what the fuzzer said and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-150000x}"

# inputs DIR: how many inputs a target's corpus directory holds (0 if none).
inputs() {
	if [ -d "$1" ]; then find "$1" -type f | wc -l; else echo 0; fi
}

# Every package with a fuzz target: a decoder added anywhere is fuzzed
# without editing this list.
pkgs="$(grep -rl --include='*_test.go' '^func Fuzz' core tests 2>/dev/null | xargs -r -n1 dirname | sort -u | sed 's|^|./|')"
for pkg in $pkgs; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		echo "-- $pkg $target ($budget)"
		corpus="$pkg/testdata/fuzz/$target"
		before="$(inputs "$corpus")"
		if ! out="$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$budget" "$pkg" 2>&1)"; then
			after="$(inputs "$corpus")"
			if [ "$after" = "$before" ] && printf '%s\n' "$out" | grep -q 'context deadline exceeded'; then
				echo "   (the deadline race of go.dev/issue/75804 at the end of the run; no input failed)"
				continue
			fi
			printf '%s\n' "$out" | tail -n 40 >&2
			echo "fuzz: $pkg $target failed" >&2
			exit 1
		fi
	done
done
echo "fuzz: every target ran $budget without a failure"
