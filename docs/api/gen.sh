#!/usr/bin/env bash
# Writes the Go API reference as plain text, one file per public package,
# from the code's own doc comments (go doc -all):
#   docs/api/gen.sh [OUTDIR]        (default build/out/api)
# Offline; needs only the Go toolchain. Internal and test-only packages
# (internal/, faultfs) are left out.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/out/api}
mkdir -p "$out"
mod=$(go list -m)
for pkg in $(go list ./core/... | grep -v -e /internal/ -e /faultfs); do
	rel=${pkg#"$mod"/}
	file="$out/go-${rel//\//-}.txt"
	go doc -all "$pkg" >"$file"
	echo "$file"
done
