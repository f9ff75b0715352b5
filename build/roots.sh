#!/usr/bin/env bash
# Makes (once) the Debian 11 "bullseye" roots the portable builds and their
# tests run in, cached outside the repository so a second run costs nothing:
#
#   <roots>/bullseye-amd64   the build root: gcc 10 and glibc 2.31 for
#                            x86-64, Debian's aarch64 cross compiler with
#                            the arm64 glibc 2.31 it links against, and
#                            python3 + Node 20 for testing the x86-64
#                            artifacts on the oldest C library they claim
#   <roots>/bullseye-arm64   an arm64 userland (python3, Node 20) whose
#                            binaries run here under qemu-user
#
#   build/roots.sh [amd64|arm64 ...]     default: both
#
# <roots> is /var/cache/weida-roots unless WEIDA_ROOTS names another. A root
# is finished when it holds .weida-root naming the recipe it was made from;
# a root without it (an interrupted run) or from another recipe is made
# again. Needs root, debootstrap, qemu-user-static and
# binutils-aarch64-linux-gnu (installed with apt-get when missing), Debian's
# archive, and npm's registry for Node (the node-linux-<arch> packages, which
# ship the official build) and npm (pure JavaScript) inside the roots.
set -euo pipefail
cd "$(dirname "$0")/.."
. build/lib/roots.sh

suite=bullseye
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
node_version=20.19.6
npm_version=10.8.2
build_packages=gcc,libc6-dev,binutils,gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,python3,python3-venv,ca-certificates
test_packages=python3,python3-venv,ca-certificates

# need_tools: what making, entering and checking the roots takes on the host
# (aarch64-linux-gnu-objdump reads the arm64 files' symbol versions).
need_tools() {
	local missing=()
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	[ -x /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
	command -v aarch64-linux-gnu-objdump >/dev/null || missing+=(binutils-aarch64-linux-gnu)
	if [ ${#missing[@]} -gt 0 ]; then
		echo "roots: installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
	fi
}

# node_into <root> <npm arch>: the official Node build, from npm's
# node-linux-<arch> package, as <root>/opt/node with /usr/local/bin/node,
# and npm (pure JavaScript) as /opt/npm with /usr/local/bin/npm. Done once
# per version: <root>/opt/.weida-node names what is there.
node_into() {
	local root="$1" arch="$2" tmp want="node-$node_version npm-$npm_version"
	[ "$(cat "$root/opt/.weida-node" 2>/dev/null)" != "$want" ] || return 0
	tmp="$(mktemp -d)"
	(cd "$tmp" && npm pack --silent "node-linux-$arch@$node_version" "npm@$npm_version" >/dev/null)
	rm -rf "$root/opt/node" "$root/opt/npm"
	mkdir -p "$root/opt/node" "$root/opt/npm" "$root/usr/local/bin"
	tar -xzf "$tmp"/node-linux-"$arch"-*.tgz -C "$root/opt/node" --strip-components=1
	tar -xzf "$tmp"/npm-*.tgz -C "$root/opt/npm" --strip-components=1
	ln -sf /opt/node/bin/node "$root/usr/local/bin/node"
	printf '#!/bin/sh\nexec /opt/node/bin/node /opt/npm/bin/npm-cli.js "$@"\n' >"$root/usr/local/bin/npm"
	chmod +x "$root/usr/local/bin/npm"
	printf '%s\n' "$want" >"$root/opt/.weida-node"
	rm -rf "$tmp"
}

# make_root <debian arch> <packages> <npm arch>
make_root() {
	local arch="$1" packages="$2" node_arch="$3"
	local root="$ROOTS/$suite-$arch"
	local recipe="$suite $arch $packages"
	if [ "$(cat "$root/.weida-root" 2>/dev/null)" = "$recipe" ]; then
		node_into "$root" "$node_arch"
		echo "roots: $root is ready"
		return
	fi
	echo "== roots: debootstrap $suite $arch into $root (a few minutes, once)"
	rm -rf "$root"
	mkdir -p "$root"
	if [ "$arch" = amd64 ]; then
		debootstrap --variant=minbase --arch="$arch" --include="$packages" "$suite" "$root" "$mirror" >"$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2; exit 1; }
	else
		register_qemu_aarch64
		debootstrap --foreign --variant=minbase --arch="$arch" --include="$packages" "$suite" "$root" "$mirror" >"$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2; exit 1; }
		chroot "$root" /debootstrap/debootstrap --second-stage >>"$root.log" 2>&1 ||
			{ tail -n 20 "$root.log" >&2; exit 1; }
	fi
	node_into "$root" "$node_arch"
	apt_clean "$root"
	printf '%s\n' "$recipe" >"$root/.weida-root"
	echo "roots: made $root ($(du -sh "$root" | cut -f1))"
}

apt_clean() { rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages; }

[ "$(id -u)" = 0 ] || { echo "roots: needs root (debootstrap, chroot)" >&2; exit 1; }
need_tools
mkdir -p "$ROOTS"
[ $# -gt 0 ] || set -- amd64 arm64
for arch in "$@"; do
	case "$arch" in
	amd64) make_root amd64 "$build_packages" x64 ;;
	arm64) make_root arm64 "$test_packages" arm64 ;;
	*) echo "roots: unknown root $arch (amd64 or arm64)" >&2; exit 2 ;;
	esac
done
