#!/usr/bin/env bash
# Builds the npm package dist/weida-<version>.tgz with no network access and
# no node-gyp: build/lib.sh builds libweida.so (skipped when the library in
# <out>/lib is newer than every source it is built from), gcc compiles the
# Node-API addon in bindings/node/src against Node's installed headers,
# linking libweida.so with an $ORIGIN rpath, and npm pack packs a staged
# copy of bindings/node with both files under prebuilds/<platform>-<arch>/.
#
#   build/npm.sh          <out> is build/out unless WEIDA_OUT names another;
#                         headers come from /usr/include/node unless
#                         NODE_INCLUDE names another directory
#
# Install it with: npm install --offline ./dist/weida-*.tgz (no registry: the
# package has no dependencies and no install script).
# Needs Go and a C compiler (for the library), node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/common.sh

out="${WEIDA_OUT:-$PWD/build/out}"
lib="$out/lib/libweida.so"
node_include="${NODE_INCLUDE:-/usr/include/node}"
build_lib_if_stale "$out" npm
[ -f "$node_include/node_api.h" ] || { echo "npm: no node_api.h in $node_include (set NODE_INCLUDE)" >&2; exit 1; }

platform="$(node -p 'process.platform + "-" + process.arch')"
stage="$out/npm/weida"
rm -rf "$stage"
mkdir -p "$stage/prebuilds/$platform"
prebuilt="$stage/prebuilds/$platform"

echo "== weida.node (gcc, Node-API from $node_include)"
cp "$lib" "$prebuilt/libweida.so"
gcc -std=c11 -O2 -Wall -Wextra -Werror -pthread -fvisibility=hidden -shared -fPIC \
	-I"$node_include" -Iinclude bindings/node/src/*.c \
	-L"$prebuilt" -lweida -Wl,-rpath,'$ORIGIN' \
	-o "$prebuilt/weida.node"

echo "== stage and pack"
cp bindings/node/index.js bindings/node/index.d.ts bindings/node/README.md "$stage/"
# The staged manifest names the one platform its prebuilt files are for, so
# npm refuses the tarball elsewhere instead of failing at require time.
node -e '
	const pkg = require(process.argv[1]);
	Object.assign(pkg, { os: [process.platform], cpu: [process.arch] });
	require("node:fs").writeFileSync(process.argv[2], JSON.stringify(pkg, null, 2) + "\n");
' "$PWD/bindings/node/package.json" "$stage/package.json"
cp -r bindings/node/lib "$stage/lib"
mkdir -p dist
rm -f dist/weida-*.tgz
(cd "$stage" && npm pack --offline --silent --pack-destination "$OLDPWD/dist" >/dev/null)
echo "npm: built $(ls dist/weida-*.tgz) ($platform)"
