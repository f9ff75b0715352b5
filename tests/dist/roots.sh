#!/usr/bin/env bash
# The portable artifacts (build/portable.sh) where they are meant to run:
# Debian 11 (glibc 2.31, Python 3.9, Node 20) for x86-64 in the
# bullseye-amd64 root, and for arm64 in the bullseye-arm64 root, whose every
# binary runs under qemu-user. In each root, from files copied in, with no Go
# and no registry:
#
#   1. a fresh venv, pip install --no-index of that architecture's wheel,
#      tests/dist/smoke.py (import, constants, versions, one request over QUIC);
#   2. an empty project, npm install --offline of the one npm package (its
#      prebuild for the root's platform), tests/dist/smoke.mjs (the same);
#   3. the C library tarball: bindings/c-examples/reqrep.c (requests over
#      QUIC in one process) compiled in the build root with the flags
#      pkg-config reads from the tarball's weida.pc (for arm64 with the
#      cross compiler) and run in the architecture's root; its CLI's
#      weida --version.
#
#   tests/dist/roots.sh [amd64|arm64 ...]   default: both; runs build/portable.sh first
#                                          unless WEIDA_PORTABLE_BUILT=1
#
# The last line is "N passed, N failed". Needs root; build/roots.sh makes the
# roots when missing (minutes, once).
set -euo pipefail
cd "$(dirname "$0")/../.."
. build/lib/roots.sh

repo="$PWD"
version="$(cat VERSION)"
[ $# -gt 0 ] || set -- amd64 arm64
if [ -z "${WEIDA_PORTABLE_BUILT:-}" ]; then
	build/portable.sh >/dev/null || { echo "roots: build/portable.sh failed" >&2; echo "0 passed, 1 failed"; exit 1; }
fi
build/roots.sh "$@" >/dev/null
register_qemu_aarch64
dist="$repo/dist/portable"
passed=0 failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# check <name> <root> <shell command in the root>: one step, its output kept.
check() {
	local name="$1" root="$2" command="$3" started=$SECONDS
	if in_root "$root" "$command" "$work/t:/t" >"$work/$name.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name ($((SECONDS - started)) s)"
		{ grep -E '^smoke\.(py|mjs): |^weida |^reqrep' "$work/$name.log" || true; } | sed 's/^/       /'
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		sed 's/^/       /' "$work/$name.log"
	fi
}

for arch in "$@"; do
	case "$arch" in
	amd64) wheel_arch=x86_64 ;;
	arm64) wheel_arch=aarch64 ;;
	*) echo "roots: unknown root $arch (amd64 or arm64)" >&2; exit 2 ;;
	esac
	root="bullseye-$arch"
	rm -rf "$work/t"
	mkdir -p "$work/t"
	cp "$dist"/weida-*-manylinux_*_"$wheel_arch".whl "$dist"/weida-*.tgz tests/dist/smoke.py tests/dist/smoke.mjs "$work/t/"
	tar -xzf "$dist/libweida-$version-linux-$wheel_arch.tar.gz" -C "$work/t"
	check "$arch-wheel" "$root" "
		python3 -m venv /t/venv
		/t/venv/bin/pip install --quiet --no-index --disable-pip-version-check /t/weida-*.whl
		cd /t && /t/venv/bin/python smoke.py $version"
	check "$arch-npm" "$root" "
		mkdir -p /t/project && cd /t/project
		printf '{ \"name\": \"dist-smoke\", \"version\": \"1.0.0\", \"private\": true }\n' >package.json
		npm install --offline --registry=http://127.0.0.1:9/ --no-audit --no-fund --silent /t/weida-*.tgz
		cp /t/smoke.mjs . && node smoke.mjs $version"
	prefix="/t/libweida-$version-linux-$wheel_arch"
	cflags="$(PKG_CONFIG_PATH="$work$prefix/lib/pkgconfig" pkg-config --cflags --libs weida | sed "s|$work/t|/t|g")"
	cross=""
	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
	cp bindings/c-examples/reqrep.c bindings/c-examples/example.h "$work/t/"
	check "$arch-c-build" bullseye-amd64 "
		${cross}gcc -std=c11 -Wall -Werror /t/reqrep.c $cflags -lpthread -Wl,-rpath,$prefix/lib -o /t/reqrep"
	check "$arch-c-run" "$root" "/t/reqrep"
	check "$arch-cli" "$root" "
		test \"\$(/t/libweida-$version-linux-$wheel_arch/bin/weida --version)\" = 'weida $version'
		/t/libweida-$version-linux-$wheel_arch/bin/weida --version"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
