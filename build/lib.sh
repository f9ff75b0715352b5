#!/usr/bin/env bash
# Builds the C library from capi/: the shared library (go build
# -buildmode=c-shared), the static archive (-buildmode=c-archive), the
# header and a pkg-config file, laid out as a prefix:
#
#   <out>/include/weida.h
#   <out>/lib/libweida.so   <out>/lib/libweida.a
#   <out>/lib/pkgconfig/weida.pc
#
# <out> is build/out unless WEIDA_OUT names another directory. Link with
#   PKG_CONFIG_PATH=<out>/lib/pkgconfig cc app.c $(pkg-config --cflags --libs weida)
# or statically with $(pkg-config --static --cflags --libs weida) and -l:libweida.a.
# Needs Go and a C compiler (cgo).
set -euo pipefail
cd "$(dirname "$0")/.."

out="${WEIDA_OUT:-$PWD/build/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
version="${WEIDA_VERSION:-0.1.0-dev}"
abi="$(sed -n 's/^#define WEIDA_ABI_VERSION \([0-9]*\)$/\1/p' include/weida.h)"
mkdir -p "$out/include" "$out/lib/pkgconfig"

# Export weida_* and nothing else: the Go runtime's own symbols (_cgo_*,
# crosscall*, ...) stay local, so the library adds one prefix to a
# program's namespace.
symbols="$(mktemp)"
trap 'rm -f "$symbols"' EXIT
printf '{\n  global: weida_*;\n  local: *;\n};\n' >"$symbols"

ldflags="-X main.version=$version"
echo "== libweida.so (c-shared)"
CGO_ENABLED=1 go build -trimpath -buildmode=c-shared \
	-ldflags "$ldflags -extldflags '-Wl,--version-script=$symbols -Wl,-soname,libweida.so'" \
	-o "$out/lib/libweida.so" ./capi
echo "== libweida.a (c-archive)"
CGO_ENABLED=1 go build -trimpath -buildmode=c-archive -ldflags "$ldflags" -o "$out/lib/libweida.a" ./capi
# cgo writes its own libweida.h beside each; weida.h is the documented one.
rm -f "$out/lib/libweida.h"
cp include/weida.h "$out/include/weida.h"

cat >"$out/lib/pkgconfig/weida.pc" <<PC
prefix=$out
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: weida
Description: QUIC-native messaging (C ABI $abi)
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -lweida
Libs.private: -lpthread -lm
PC
echo "lib: built $out (weida $version, ABI $abi)"
