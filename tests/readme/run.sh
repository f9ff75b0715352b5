#!/usr/bin/env bash
# Runs the READMEs' code blocks (tests/readme, see doc.go): builds the C
# library, the addon and the npm tarball (build/npm.sh, which rebuilds the
# library only when stale), installs the tarball offline into a fresh
# project for the JavaScript blocks, then runs every Go, Python, JavaScript
# and C block of README.md, bindings/python/README.md,
# bindings/node/README.md and capi/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
out="${WEIDA_OUT:-$repo/build/out}"
WEIDA_OUT="$out" ./build/npm.sh >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project"
printf '{ "name": "readme-blocks", "version": "1.0.0", "private": true }\n' >"$work/project/package.json"
(cd "$work/project" && npm install --offline --registry=http://127.0.0.1:9/ --no-audit --no-fund --silent \
	"$repo"/dist/weida-*.tgz)
WEIDA_OUT="$out" WEIDA_NODE_PROJECT="$work/project" go test -count=1 ./tests/readme/
