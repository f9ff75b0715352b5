#!/usr/bin/env bash
# Builds the Python wheel dist/weida-<version>-py3-none-<platform>.whl with no
# network access: build/lib.sh builds libweida.so (skipped when the library
# in <out>/lib is newer than every source it is built from), then
# bindings/python/wheel.py zips the package with the library bundled inside
# and writes METADATA, WHEEL and RECORD itself (no PyPI, no build backend).
#
#   build/wheel.sh            <out> is build/out unless WEIDA_OUT names another
#
# Install it with: pip install --no-index dist/weida-*.whl
# Needs Go and a C compiler (for the library), python3 >= 3.11 and objdump.
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/common.sh

out="${WEIDA_OUT:-$PWD/build/out}"
lib="$out/lib/libweida.so"
build_lib_if_stale "$out" wheel
python3 bindings/python/wheel.py --lib "$lib" --dist dist
