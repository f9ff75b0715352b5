#!/usr/bin/env bash
# Builds the npm package <dist>/weida-<version>.tgz (version: the VERSION
# file) with no node-gyp and no install script. Each prebuild sits in
# prebuildify's layout, found at require time by the bundled node-gyp-build:
#
#   prebuilds/<platform>-<arch>/node.napi.glibc.node   the Node-API addon
#   prebuilds/<platform>-<arch>/libweida.so.<ABI>      the library it links ($ORIGIN rpath)
#
#   build/npm.sh     one prebuild for this machine: build/lib.sh builds
#                    libweida (skipped when <out>/lib is newer than every
#                    source), build/addon.sh the addon. <out> is build/out
#                    unless WEIDA_OUT names another
#   WEIDA_PREBUILDS="linux-x64=DIR linux-arm64=DIR" build/npm.sh
#                    packs the prebuilds already in each DIR instead
#                    (build/portable.sh does)
#
# <dist> is dist unless WEIDA_DIST names another directory.
# The staged manifest names the platforms packed (os, cpu, libc), so npm
# refuses the package elsewhere, naming the platform, instead of failing at
# require time. node-gyp-build comes from npm's cache or registry at build
# time and is bundled (bundleDependencies): installing needs no network:
#   npm install --offline ./<dist>/weida-*.tgz
# Needs node and npm, and for a host build Go and a C compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/common.sh

out="${WEIDA_OUT:-$PWD/build/out}"
stage="$out/npm/weida"
rm -rf "$stage"
mkdir -p "$stage/prebuilds"

prebuilds="${WEIDA_PREBUILDS:-}"
if [ -z "$prebuilds" ]; then
	build_lib_if_stale "$out" npm
	prebuilds="$(node -p 'process.platform + "-" + process.arch')=$out/npm/addon"
	rm -rf "$out/npm/addon"
	build/addon.sh "$out/lib/libweida.so" "$out/npm/addon"
fi
platforms=()
for entry in $prebuilds; do
	platform="${entry%%=*}" dir="${entry#*=}"
	[ -f "$dir/node.napi.glibc.node" ] || { echo "npm: no $dir/node.napi.glibc.node for $platform" >&2; exit 1; }
	mkdir -p "$stage/prebuilds/$platform"
	cp "$dir"/node.napi.glibc.node "$dir"/libweida.so.* "$stage/prebuilds/$platform/"
	platforms+=("$platform")
done

echo "== stage and pack (${platforms[*]})"
cp bindings/node/index.js bindings/node/index.d.ts bindings/node/README.md LICENSE "$stage/"
cp -r bindings/node/lib "$stage/lib"
node -e '
	const [source, target, version, ...platforms] = process.argv.slice(1);
	const pkg = require(source);
	pkg.version = version;
	pkg.os = [...new Set(platforms.map((p) => p.split("-")[0]))];
	pkg.cpu = [...new Set(platforms.map((p) => p.split("-")[1]))];
	pkg.libc = ["glibc"];
	delete pkg.scripts;
	require("node:fs").writeFileSync(target, JSON.stringify(pkg, null, 2) + "\n");
' "$PWD/bindings/node/package.json" "$stage/package.json" "$(cat VERSION)" "${platforms[@]}"
# The bundled dependency, from npm's cache when it has it.
(cd "$stage" && npm install --prefer-offline --omit=dev --ignore-scripts --no-package-lock \
	--no-audit --no-fund --silent)
[ -f "$stage/node_modules/node-gyp-build/package.json" ] || { echo "npm: node-gyp-build was not installed" >&2; exit 1; }
dist="${WEIDA_DIST:-dist}"
mkdir -p "$dist"
dist="$(cd "$dist" && pwd)"
rm -f "$dist"/weida-*.tgz
(cd "$stage" && npm pack --offline --silent --pack-destination "$dist" >/dev/null)
echo "npm: built $(ls "$dist"/weida-*.tgz) (${platforms[*]})"
