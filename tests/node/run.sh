#!/usr/bin/env bash
# The Node package's test run, against the installed tarball (SURFACE.md §0):
#
#   1. build/npm.sh: libweida.so (skipped when up to date), the addon and
#      dist/weida-<version>.tgz, offline;
#   2. a fresh project in a temporary directory, the tarball installed with
#      npm install --offline (no registry);
#   3. with Go removed from PATH and the working directory outside the
#      source tree: every bindings/node/test/*.test.mjs, copied there, under
#      node --test (each test bounded by --test-timeout, the whole run by
#      timeout 600, so a hang fails instead of blocking). The broker tests
#      start the `weida` CLI, built before Go leaves PATH and named by
#      WEIDA_CLI.
#
# The last line is "N passed, N failed"; the exit status is non-zero on any
# failure, including a failed build or install (counted as one failure).
set -euo pipefail
cd "$(dirname "$0")/../.."
. build/lib/common.sh

# Sets repo, work, artefact (the tarball) and nogo: the package must not need Go.
begin_binding_tests node ./build/npm.sh "the tarball" 'dist/weida-*.tgz'

echo "== node: fresh project, npm install --offline $artefact"
mkdir -p "$work/project/test"
cd "$work/project"
printf '{ "name": "weida-node-tests", "version": "1.0.0", "private": true }\n' >package.json
# A registry that refuses every connection: the install must need none.
PATH="$nogo" npm install --offline --registry=http://127.0.0.1:9/ --no-audit --no-fund --silent \
	"$repo/$artefact" ||
	setup_failed node "installing the tarball"
cp "$repo"/bindings/node/test/*.mjs test/
[ -f node_modules/weida/prebuilds/"$(node -p 'process.platform + "-" + process.arch')"/node.napi.glibc.node ] ||
	setup_failed node "finding the prebuilt addon in the installed package"

# The ESM test type-checks with tsc installed from npm's cache, offline; a
# fresh machine's cache is empty, so put typescript in it first (the npm
# registry is reachable where the tests run; the install itself stays offline).
(cd "$work" && npm cache add typescript@5 >/dev/null 2>&1) ||
	echo "node: typescript could not be put in npm's cache; the tsc check will say it skipped"

echo "== node: node --test, against the installed package (no go on PATH)"
status=0
PATH="$nogo" WEIDA_HEADER="$repo/include/weida.h" WEIDA_CLI="$work/weida" timeout 600 node --test --test-timeout=15000 \
	--test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter=tap --test-reporter-destination="$work/results.tap" \
	test/*.test.mjs || status=$?

passed="$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$work/results.tap" 2>/dev/null | tail -n 1)"
failed="$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$work/results.tap" 2>/dev/null | tail -n 1)"
cancelled="$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$work/results.tap" 2>/dev/null | tail -n 1)"
if [ -z "$passed" ] || [ -z "$failed" ]; then
	# Killed by timeout (or crashed) before the reporter's summary: say so in the same form.
	echo "node: the test run was killed or crashed (exit status $status)" >&2
	echo "${passed:-0} passed, 1 failed"
	exit 1
fi
failed=$((failed + ${cancelled:-0}))
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
