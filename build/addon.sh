#!/usr/bin/env bash
# Compiles the Node-API addon (bindings/node/src) into
# <dir>/node.napi.glibc.node, prebuildify's name for a Node-API build
# against glibc, which node-gyp-build finds under prebuilds/<platform>-<arch>/.
# It links <lib> (a libweida.so.<ABI>, copied into <dir>) with an $ORIGIN
# rpath, so the two files load from wherever the package is installed.
#
#   build/addon.sh <lib> <dir>
#
# CC (default gcc) and STRIP (default strip) choose another target's tools;
# Node's headers come from /usr/include/node unless NODE_INCLUDE names
# another directory (Node-API headers are the same on every architecture).
set -euo pipefail
cd "$(dirname "$0")/.."

lib="$1" dir="$2"
node_include="${NODE_INCLUDE:-/usr/include/node}"
[ -f "$node_include/node_api.h" ] || { echo "addon: no node_api.h in $node_include (set NODE_INCLUDE)" >&2; exit 1; }
soname="$(basename "$(readlink -f "$lib")")"
mkdir -p "$dir"
cp "$(readlink -f "$lib")" "$dir/$soname"
echo "== node.napi.glibc.node (${CC:-gcc}, Node-API from $node_include)"
"${CC:-gcc}" -std=c11 -O2 -Wall -Wextra -Werror -pthread -fvisibility=hidden -shared -fPIC \
	-I"$node_include" -Iinclude bindings/node/src/*.c \
	-L"$dir" -l:"$soname" -Wl,-rpath,'$ORIGIN' \
	-o "$dir/node.napi.glibc.node"
"${STRIP:-strip}" --strip-unneeded "$dir/node.napi.glibc.node"
