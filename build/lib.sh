#!/usr/bin/env bash
# Builds the C library from capi/: the shared library (go build
# -buildmode=c-shared), the static archive (-buildmode=c-archive), the
# header and a pkg-config file, laid out as a prefix:
#
#   <out>/include/weida.h
#   <out>/lib/libweida.so.<ABI>   (SONAME libweida.so.<ABI>, stripped)
#   <out>/lib/libweida.so -> libweida.so.<ABI>   <out>/lib/libweida.a
#   <out>/lib/pkgconfig/weida.pc  (relocatable: prefix=${pcfiledir}/../..)
#
# <out> is build/out unless WEIDA_OUT names another directory. The version
# is the VERSION file's; <ABI> is WEIDA_ABI_VERSION in include/weida.h.
# GOARCH, CC and STRIP (default strip) choose another target's tools, as
# build/portable.sh does. Link with
#   PKG_CONFIG_PATH=<out>/lib/pkgconfig cc app.c $(pkg-config --cflags --libs weida)
# or statically with $(pkg-config --static --cflags --libs weida) and -l:libweida.a.
# Needs Go and a C compiler (cgo), and binutils' strip.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${WEIDA_OUT:-$PWD/build/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
version="$(cat VERSION)"
abi="$(sed -n 's/^#define WEIDA_ABI_VERSION \([0-9]*\)$/\1/p' include/weida.h)"
[ -n "$abi" ] || { echo "lib: no WEIDA_ABI_VERSION in include/weida.h" >&2; exit 1; }
soname="libweida.so.$abi"
strip="${STRIP:-strip}"
mkdir -p "$out/include" "$out/lib/pkgconfig"

# Export weida_* and nothing else: the Go runtime's own symbols (_cgo_*,
# crosscall*, ...) stay local, so the library adds one prefix to a
# program's namespace.
symbols="$(mktemp)"
trap 'rm -f "$symbols"' EXIT
printf '{\n  global: weida_*;\n  local: *;\n};\n' >"$symbols"

ldflags="-X main.version=$version"
echo "== $soname (c-shared, ${GOARCH:-$(go env GOARCH)})"
rm -f "$out/lib/libweida.so" "$out/lib/libweida.so".*
CGO_ENABLED=1 go build -trimpath -buildmode=c-shared \
	-ldflags "$ldflags -extldflags '-Wl,--version-script=$symbols -Wl,-soname,$soname'" \
	-o "$out/lib/$soname" ./capi
before="$(stat -c %s "$out/lib/$soname")"
# Debug info and the symbol table go; the dynamic symbols (weida_* and what
# the library needs from libc) stay.
"$strip" --strip-unneeded "$out/lib/$soname"
echo "lib: $soname stripped: $before -> $(stat -c %s "$out/lib/$soname") bytes"
ln -sfn "$soname" "$out/lib/libweida.so"
echo "== libweida.a (c-archive)"
CGO_ENABLED=1 go build -trimpath -buildmode=c-archive -ldflags "$ldflags" -o "$out/lib/libweida.a" ./capi
"$strip" --strip-debug "$out/lib/libweida.a"
# cgo writes its own libweida.h beside each; weida.h is the documented one.
rm -f "$out/lib/libweida.h" "$out/lib/libweida.so.h" "$out/lib/$soname.h"
cp include/weida.h "$out/include/weida.h"

# ${pcfiledir} is where pkg-config found this file, so the prefix moves
# with it (build/install.sh copies it unchanged).
cat >"$out/lib/pkgconfig/weida.pc" <<'PC'
prefix=${pcfiledir}/../..
includedir=${prefix}/include
libdir=${prefix}/lib
PC
cat >>"$out/lib/pkgconfig/weida.pc" <<PC

Name: weida
Description: QUIC-native messaging (C ABI $abi)
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -lweida
Libs.private: -lpthread -lm
PC
echo "lib: built $out (weida $version, ABI $abi, $soname)"
