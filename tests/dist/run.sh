#!/usr/bin/env bash
# The distribution's promises on this machine (the quick run, in CI):
#
#   install   build/install.sh into a temporary prefix, the prefix moved
#             elsewhere, a C program (bindings/c-examples/reqrep.c: requests
#             over QUIC in one process) built with pkg-config against the
#             moved prefix and run;
#   version   every build says the VERSION file's version: the library, the
#             CLI, weida.pc, the wheel, the npm package, and the fallback
#             literals in the tree; the SONAME is libweida.so.<ABI>; the
#             LICENSE and SPDX identifiers ship;
#   refusals  a damaged or wrong-ABI libweida is refused at import (Python)
#             and require (Node) with the versions named; npm refuses an
#             unsupported platform naming it and what is supported, and the
#             loader says the same when asked for a platform it has no
#             prebuild for; wheel.py refuses to tag a library that needs a
#             newer glibc than allowed.
#
#   tests/dist/run.sh
#
# The last line is "N passed, N failed". Needs Go, gcc, pkg-config, python3,
# node and npm (tests/dist/roots.sh is the heavy run on Debian 11 and arm64).
set -euo pipefail
cd "$(dirname "$0")/../.."
. build/lib/common.sh

repo="$PWD"
version="$(cat VERSION)"
abi="$(sed -n 's/^#define WEIDA_ABI_VERSION \([0-9]*\)$/\1/p' include/weida.h)"
pyversion="$(python3 -c 'import sys; sys.path.insert(0, "bindings/python"); import wheel; print(wheel.pep440(sys.argv[1]))' "$version")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || sed 's/^/       /' <<<"$2"; }
# same <name> <want> <got>
same() { if [ "$2" = "$3" ]; then ok "$1 ($3)"; else bad "$1" "want: $2"$'\n'"got:  $3"; fi; }
# refused <name> <ERE the output must match> <command...>: the command must
# fail, saying so.
refused() {
	local name="$1" pattern="$2" output status=0
	shift 2
	output="$("$@" 2>&1)" || status=$?
	if [ "$status" -ne 0 ] && grep -Eq -- "$pattern" <<<"$output"; then
		ok "$name: $(grep -Eo -- "$pattern" <<<"$output" | head -n 1)"
	else
		bad "$name (exit $status, wanted failure matching: $pattern)" "$output"
	fi
}
# fine <name> <command...>: the command must succeed.
fine() {
	local name="$1" output
	shift
	if output="$("$@" 2>&1)"; then ok "$name"; else bad "$name" "$output"; fi
}

echo "== dist: building the wheel, the npm package and an installed prefix"
build/wheel.sh >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; setup_failed dist "building the wheel"; }
build/npm.sh >"$work/npm.log" 2>&1 || { cat "$work/npm.log"; setup_failed dist "building the npm package"; }
build/install.sh "$work/stage/usr" >"$work/install.log" 2>&1 || { cat "$work/install.log"; setup_failed dist "build/install.sh"; }
wheel="$(ls dist/weida-*.whl)" tarball="$(ls dist/weida-*.tgz)"

echo "== install: the prefix moved, a C program built with pkg-config against it"
prefix="$work/elsewhere/prefix"
mkdir -p "$(dirname "$prefix")"
mv "$work/stage/usr" "$prefix"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags="$(pkg-config --cflags weida | xargs)"
same "pkg-config finds the moved prefix" "$prefix/include" "$(readlink -f "${cflags#-I}")"
fine "reqrep.c builds against the installed header and library" \
	cc -std=c11 -Wall -Werror -Ibindings/c-examples bindings/c-examples/reqrep.c $(pkg-config --cflags --libs weida) \
	-lpthread -Wl,-rpath,"$prefix/lib" -o "$work/reqrep"
same "the program needs the SONAME" "libweida.so.$abi" \
	"$(readelf -d "$work/reqrep" | sed -n 's/.*NEEDED.*\[\(libweida[^]]*\)\].*/\1/p')"
fine "reqrep runs against the installed library (requests over QUIC)" "$work/reqrep"
same "the installed library's SONAME" "libweida.so.$abi" \
	"$(readelf -d "$prefix/lib/libweida.so" | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')"
same "libweida.so is a link to the SONAME" "libweida.so.$abi" "$(readlink "$prefix/lib/libweida.so")"
fine "the installed library is stripped (no .symtab, no debug info)" \
	bash -c "! readelf -S '$prefix/lib/libweida.so.$abi' | grep -Eq '\.symtab|\.debug_'"

echo "== version: one source"
same "VERSION" "$version" "$version"
same "weida --version" "weida $version" "$("$prefix/bin/weida" --version)"
same "pkg-config --modversion" "$version" "$(pkg-config --modversion weida)"
same "capi's fallback literal" "$version" "$(sed -n 's/^var version = "\(.*\)"$/\1/p' capi/lib.go)"
same "cmd/weida's fallback literal" "$version" "$(sed -n 's/^var version = "\(.*\)"$/\1/p' cmd/weida/main.go)"
same "weida/__init__.py's fallback literal" "$pyversion" \
	"$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' bindings/python/weida/__init__.py)"
same "bindings/node/package.json" "$version" "$(node -p 'require("./bindings/node/package.json").version')"
same "the wheel's file name" "dist/weida-$pyversion-py3-none-" "${wheel%%manylinux*}"
metadata="$(unzip -p "$wheel" "weida-$pyversion.dist-info/METADATA")"
same "the wheel's METADATA version" "Version: $pyversion" "$(grep '^Version: ' <<<"$metadata")"
same "the wheel's METADATA licence" "License: Apache-2.0" "$(grep '^License: ' <<<"$metadata")"
same "the wheel's LICENSE" "$(cmp -s <(unzip -p "$wheel" "weida-$pyversion.dist-info/LICENSE") LICENSE && echo same)" same
same "the packaged __version__" "__version__ = \"$pyversion\"" "$(unzip -p "$wheel" weida/__init__.py | grep '^__version__ = ')"
manifest="$(tar -xzOf "$tarball" package/package.json)"
same "the npm package's version and licence" "$version Apache-2.0 glibc" \
	"$(node -e 'const p = JSON.parse(process.argv[1]); console.log(p.version, p.license, p.libc.join())' "$manifest")"
same "the npm package bundles node-gyp-build and the LICENSE" "2" \
	"$(tar -tzf "$tarball" | grep -cE '^package/(LICENSE|node_modules/node-gyp-build/package\.json)$')"
same "the header's SPDX line" "/* SPDX-License-Identifier: Apache-2.0 */" "$(head -n 1 "$prefix/include/weida.h")"

echo "== refusals"
# A libweida that answers another C ABI: capi built with abiVersion changed
# through an overlay (the tree is not touched).
sed 's/^const abiVersion = .*/const abiVersion = 99/' capi/lib.go >"$work/lib_abi99.go"
printf '{"Replace": {"%s": "%s"}}\n' "$repo/capi/lib.go" "$work/lib_abi99.go" >"$work/overlay.json"
grep -q 'abiVersion = 99' "$work/lib_abi99.go" || setup_failed dist "making the wrong-ABI library's source"
CGO_ENABLED=1 go build -overlay "$work/overlay.json" -buildmode=c-shared \
	-ldflags "-extldflags -Wl,-soname,libweida.so.$abi" -o "$work/abi99/libweida.so.$abi" ./capi ||
	setup_failed dist "building the wrong-ABI library"
printf 'this is not an ELF file\n' >"$work/damaged.so"
refused "wheel.py refuses a library needing a newer glibc than allowed" 'refusing to tag .* needs glibc [0-9.]+' \
	python3 bindings/python/wheel.py --lib "$prefix/lib/libweida.so" --dist "$work/refused" --max-glibc 2.0

nogo="$(path_without_go)"
PATH="$nogo" python3 -m venv "$work/venv" && PATH="$nogo" "$work/venv/bin/pip" install --quiet --no-index \
	--disable-pip-version-check "$wheel" || setup_failed dist "installing the wheel into a venv"
bundled="$("$work/venv/bin/python" -c 'import importlib.util as u; print(u.find_spec("weida").submodule_search_locations[0])')/libweida.so"
cp "$bundled" "$work/good.so"
same "the installed wheel imports" "$pyversion" "$(cd "$work" && "$work/venv/bin/python" -c 'import weida; print(weida.__version__)')"
cp "$work/damaged.so" "$bundled"
refused "python: a damaged libweida is refused at import" "ImportError: weida: cannot load the C library .*libweida.so \\(this package binds C ABI $abi\\)" \
	bash -c "cd '$work' && '$work/venv/bin/python' -c 'import weida'"
cp "$work/abi99/libweida.so.$abi" "$bundled"
refused "python: a wrong-ABI libweida is refused at import" "ImportError: .*C ABI 99.* ABI $abi" \
	bash -c "cd '$work' && '$work/venv/bin/python' -c 'import weida'"
cp "$work/good.so" "$bundled"

mkdir -p "$work/project" && cd "$work/project"
printf '{ "name": "dist-tests", "version": "1.0.0", "private": true }\n' >package.json
npm_install() { PATH="$nogo" npm install --offline --registry=http://127.0.0.1:9/ --no-audit --no-fund --silent "$@"; }
# npm checks the package's os/cpu/libc against process.platform/arch: a
# preloaded module makes this machine a riscv64 one for that check.
printf "Object.defineProperty(process, 'arch', { value: 'riscv64' });\n" >"$work/riscv64.js"
refused "npm refuses an unsupported CPU, naming it and what is supported" \
	'Unsupported platform for weida@[^:]*: wanted \{"os":"linux","cpu":"[^"]*","libc":"glibc"\} \(current: \{"os":"linux","cpu":"riscv64"' \
	env NODE_OPTIONS="--require=$work/riscv64.js" npm install --offline --registry=http://127.0.0.1:9/ --no-audit \
	--no-fund --loglevel=error "$repo/$tarball"
npm_install "$repo/$tarball" || setup_failed dist "installing the npm package"
platform="$(node -p 'process.platform + "-" + process.arch')"
prebuilt="node_modules/weida/prebuilds/$platform"
same "the installed package loads" "$version" "$(node -p 'require("weida").version')"
refused "node: no prebuild for this platform names it and what is supported" \
	"no prebuilt addon for linux-riscv64 \(glibc\); this package supports $platform with glibc 2.31 or later" \
	env npm_config_arch=riscv64 node -e 'require("weida")'
cp "$work/damaged.so" "$prebuilt/libweida.so.$abi"
refused "node: a damaged libweida is refused at require" \
	"weida $version: cannot load the addon .*node\.napi\.glibc\.node, which needs libweida\.so\.$abi \(C ABI $abi\)" \
	node -e 'require("weida")'
cp "$work/abi99/libweida.so.$abi" "$prebuilt/libweida.so.$abi"
refused "node: a wrong-ABI libweida is refused at require" \
	"libweida implements C ABI 99, this addon was built for C ABI $abi" node -e 'require("weida")'
cd "$repo"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
