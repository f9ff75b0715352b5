#!/usr/bin/env bash
# Installs the C library, its header, the pkg-config file and the weida CLI
# into a prefix:
#
#   <prefix>/include/weida.h
#   <prefix>/lib/libweida.so.<ABI>, libweida.so -> libweida.so.<ABI>, libweida.a
#   <prefix>/lib/pkgconfig/weida.pc
#   <prefix>/bin/weida
#   <prefix>/share/doc/weida/{LICENSE,CHANGELOG.md}
#
#   build/install.sh PREFIX      e.g. /usr/local, or $HOME/.local
#
# It installs what <out> holds (build/out unless WEIDA_OUT names another,
# e.g. build/out/portable/aarch64), building the library (build/lib.sh, when
# stale) and the CLI first if <out> has none. weida.pc finds its prefix from
# where it lies, so the installed tree can be moved; build against it with
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig cc app.c $(pkg-config --cflags --libs weida)
# and run with <prefix>/lib on the loader's path (ldconfig, or -Wl,-rpath).
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/common.sh

[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: build/install.sh PREFIX" >&2; exit 2; }
prefix="$1"
out="${WEIDA_OUT:-$PWD/build/out}"
version="$(cat VERSION)"
if [ -z "${WEIDA_OUT:-}" ]; then
	build_lib_if_stale "$out" install
	echo "== weida CLI"
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out/bin/weida" ./cmd/weida
fi
lib="$(readlink -f "$out/lib/libweida.so")"
for need in "$lib" "$out/lib/libweida.a" "$out/include/weida.h" "$out/lib/pkgconfig/weida.pc" "$out/bin/weida"; do
	[ -f "$need" ] || { echo "install: $need is missing (build it first)" >&2; exit 1; }
done

mkdir -p "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/bin" "$prefix/share/doc/weida"
install -m 644 "$out/include/weida.h" "$prefix/include/weida.h"
install -m 755 "$lib" "$prefix/lib/$(basename "$lib")"
ln -sfn "$(basename "$lib")" "$prefix/lib/libweida.so"
install -m 644 "$out/lib/libweida.a" "$prefix/lib/libweida.a"
install -m 644 "$out/lib/pkgconfig/weida.pc" "$prefix/lib/pkgconfig/weida.pc"
install -m 755 "$out/bin/weida" "$prefix/bin/weida"
install -m 644 LICENSE CHANGELOG.md "$prefix/share/doc/weida/"
echo "install: weida $version into $prefix"
