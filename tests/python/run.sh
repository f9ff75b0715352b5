#!/usr/bin/env bash
# The Python package's test run, against the installed wheel (SURFACE.md §0):
#
#   1. build/wheel.sh: libweida.so (skipped when up to date) and
#      dist/weida-<version>-py3-none-<platform>.whl, offline;
#   2. a fresh virtualenv (python3 -m venv) in a temporary directory, the
#      wheel installed with pip --no-index (no PyPI);
#   3. with Go removed from PATH and the working directory outside the
#      source tree: smoke.py under a 30 s bound, then every test module of
#      bindings/python/tests (each test under a 15 s bound, a watchdog kills a
#      hang) via tests/python/runner.py. The broker tests start the `weida`
#      CLI, built before Go leaves PATH and named by WEIDA_CLI.
#
# The last line is "N passed, N failed"; the exit status is non-zero on any
# failure, including a failed build or install (counted as one failure).
set -euo pipefail
cd "$(dirname "$0")/../.."
. build/lib/common.sh

# Sets repo, work, artefact (the wheel) and nogo: the wheel must not need Go.
begin_binding_tests python ./build/wheel.sh "the wheel" 'dist/weida-*.whl'

echo "== python: fresh venv, pip install --no-index $artefact"
PATH="$nogo" python3 -m venv "$work/venv" || setup_failed python "creating the venv"
PATH="$nogo" "$work/venv/bin/python" -m pip install --quiet --no-index --disable-pip-version-check \
	"$repo/$artefact" || setup_failed python "installing the wheel"

echo "== python: smoke.py and the tests, against the installed package"
cd "$work"
status=0
PATH="$nogo" PYTHONDONTWRITEBYTECODE=1 WEIDA_CLI="$work/weida" timeout 600 "$work/venv/bin/python" "$repo/tests/python/runner.py" |
	tee "$work/runner.log" || status=$?
# A hung test is killed by the watchdog (or timeout) before the runner can
# print its closing line: say so in the same form.
if ! tail -n 1 "$work/runner.log" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
	echo "python: the runner was killed (exit status $status): a test hung or crashed" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
exit "$status"
