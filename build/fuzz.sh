#!/usr/bin/env bash
# Runs every decoder's fuzz target for the given time each (default 3s).
# The heavier pass: ./build/fuzz.sh 5m
set -euo pipefail
cd "$(dirname "$0")/.."
time_each="${1:-3s}"
for pkg in ./core/wire; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		echo "-- $pkg $target ($time_each)"
		# Quiet when it passes; on a failure, what the fuzzer said (the
		# failing input, or why a worker stopped) is what matters.
		if ! out="$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time_each" "$pkg" 2>&1)"; then
			printf '%s\n' "$out" | tail -n 40 >&2
			echo "fuzz: $pkg $target failed" >&2
			exit 1
		fi
	done
done
echo "fuzz: every target ran $time_each without a failure"
