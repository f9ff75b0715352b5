#!/usr/bin/env bash
# The release build: libweida, the Node addon and the weida CLI for x86-64
# and arm64 Linux with glibc 2.31 or later, built inside the Debian 11 root
# build/roots.sh caches (its gcc 10 and glibc 2.31 for x86-64, its aarch64
# cross compiler and arm64 glibc 2.31 for arm64; the host's Go, modules and
# build cache bound in), then packed:
#
#   build/out/portable/<arch>/{include,lib,bin/weida,node/}   arch: x86_64, aarch64
#   dist/portable/weida-<py version>-py3-none-manylinux_2_31_x86_64.whl
#   dist/portable/weida-<py version>-py3-none-manylinux_2_31_aarch64.whl
#   dist/portable/weida-<version>.tgz   one npm package, prebuilds for linux-x64 and linux-arm64
#   dist/portable/libweida-<version>-linux-<arch>.tar.gz   build/install.sh's prefix: library,
#                                 header, pkg-config file and CLI
#
#   build/portable.sh       (WEIDA_PORTABLE_PACK_ONLY=1: pack what build/out/portable holds)
#
# Every native file is checked with objdump -T: one that needs a glibc symbol
# newer than 2.31 stops the build (wheel.py checks the library again when it
# tags the wheel). The CLI is pure Go (CGO_ENABLED=0): it needs no C library.
# Needs root (chroot), Go, node and npm on the host; build/roots.sh makes
# the build root when it is missing (a few minutes, once) and installs the
# host tools it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/roots.sh

repo="$PWD"
version="$(cat VERSION)"
max_glibc=2.31
out="$repo/build/out/portable"
[ "$(id -u)" = 0 ] || { echo "portable: needs root (chroot)" >&2; exit 1; }
build/roots.sh amd64
go mod download
gomodcache="$(go env GOMODCACHE)"
gocache="$ROOTS/gocache-bullseye"
mkdir -p "$gocache" "$out"

# The build inside the root: the same scripts as a host build, with the
# root's compilers. GOPROXY=off: every module is in the bound cache.
[ -n "${WEIDA_PORTABLE_PACK_ONLY:-}" ] || in_root bullseye-amd64 '
	export GOMODCACHE=/gomod GOCACHE=/gocache GOPROXY=off GOFLAGS="-mod=readonly -buildvcs=false" GOTOOLCHAIN=local
	export NODE_INCLUDE=/node-include
	cd /src
	build_one() {
		local arch="$1" goarch="$2" cross="$3" dir=build/out/portable/$1
		rm -rf "$dir"
		WEIDA_OUT="$dir" GOARCH="$goarch" CC="${cross}gcc" STRIP="${cross}strip" build/lib.sh
		CC="${cross}gcc" STRIP="${cross}strip" build/addon.sh "$dir/lib/libweida.so" "$dir/node"
		echo "== weida CLI ($goarch, pure Go)"
		CGO_ENABLED=0 GOARCH="$goarch" go build -trimpath -ldflags "-s -w -X main.version=$(cat VERSION)" \
			-o "$dir/bin/weida" ./cmd/weida
	}
	build_one x86_64 amd64 ""
	build_one aarch64 arm64 aarch64-linux-gnu-
' "$repo:/src" /usr/local/go:/usr/local/go:ro "$gomodcache:/gomod:ro" "$gocache:/gocache" \
	/usr/include/node:/node-include:ro

# glibc_needed <objdump> <file>: the highest GLIBC_x.y its dynamic symbols
# need ("none" for a static file).
glibc_needed() {
	{ "$1" -T "$2" 2>/dev/null || true; } | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1 |
		grep . || echo none
}

echo "== glibc symbol versions (objdump -T; at most $max_glibc allowed)"
for arch in x86_64 aarch64; do
	objdump=objdump
	[ "$arch" = aarch64 ] && objdump=aarch64-linux-gnu-objdump
	for file in "$out/$arch"/lib/libweida.so.* "$out/$arch/node/node.napi.glibc.node" "$out/$arch/bin/weida"; do
		needed="$(glibc_needed "$objdump" "$file")"
		printf '  %-8s %-40s GLIBC %s\n' "$arch" "${file#"$out/"}" "$needed"
		if [ "$needed" != none ] && [ "$(printf '%s\n%s\n' "$needed" "$max_glibc" | sort -V | tail -n 1)" != "$max_glibc" ]; then
			echo "portable: ${file#"$repo/"} needs glibc $needed, more than $max_glibc" >&2
			exit 1
		fi
	done
done

dist="$repo/dist/portable"
rm -rf "$dist"
mkdir -p "$dist"
# The glibc each build linked against (the root's libc-X.Y.so), the oldest the
# wheel's tag claims.
built_against() {
	local dir=lib/x86_64-linux-gnu
	[ "$1" = aarch64 ] && dir=usr/aarch64-linux-gnu/lib
	basename "$(ls "$ROOTS/bullseye-amd64/$dir"/libc-*.so)" | sed 's/^libc-\(.*\)\.so$/\1/'
}
for arch in x86_64 aarch64; do
	python3 bindings/python/wheel.py --lib "$out/$arch/lib/libweida.so" --dist "$dist" --keep \
		--max-glibc "$max_glibc" --glibc-floor "$(built_against "$arch")"
	prefix="$(mktemp -d)/libweida-$version-linux-$arch"
	WEIDA_OUT="$out/$arch" build/install.sh "$prefix" >/dev/null
	tar -czf "$dist/libweida-$version-linux-$arch.tar.gz" -C "$(dirname "$prefix")" "$(basename "$prefix")"
	rm -rf "$(dirname "$prefix")"
done
WEIDA_DIST="$dist" WEIDA_PREBUILDS="linux-x64=$out/x86_64/node linux-arm64=$out/aarch64/node" build/npm.sh
echo "portable: built $dist"
ls -l "$dist"
