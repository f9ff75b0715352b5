# Shell functions for the cached Debian roots (build/roots.sh makes them).
# Source it from the repository root in a bash script that runs with
# `set -euo pipefail`; it sets ROOTS and defines functions only.

ROOTS="${WEIDA_ROOTS:-/var/cache/weida-roots}"

# register_qemu_aarch64: lets the kernel run arm64 ELF files through
# qemu-aarch64-static, inside chroots too (the F flag opens the interpreter
# now, so a root needs no copy of it). Mounts binfmt_misc when it is not.
register_qemu_aarch64() {
	local fs=/proc/sys/fs/binfmt_misc
	[ -e "$fs/register" ] || mount -t binfmt_misc binfmt_misc "$fs"
	[ -e "$fs/qemu-aarch64" ] && return
	printf '%s\n' ':qemu-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' >"$fs/register"
}

# root_ready <name>: fails, saying how to make it, unless <ROOTS>/<name> is
# a finished root.
root_ready() {
	[ -f "$ROOTS/$1/.weida-root" ] && return
	echo "no finished root $ROOTS/$1: run build/roots.sh first (as root)" >&2
	return 1
}

# in_root <name> <command> [binds...]: runs the shell command <command> in
# <ROOTS>/<name> with /proc, /dev and each bind (SRC:DEST, DEST inside the
# root; SRC:DEST:ro for read-only) mounted in a private mount namespace, so
# every mount goes away with the command, however it ends.
in_root() {
	local name="$1" command="$2"
	shift 2
	root_ready "$name"
	unshare --mount --propagation private -- bash -euo pipefail -c '
		root="$1" command="$2"
		shift 2
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		for bind in "$@"; do
			IFS=: read -r src dest mode <<<"$bind"
			mkdir -p "$root$dest"
			mount --bind "$src" "$root$dest"
			[ "$mode" != ro ] || mount -o remount,bind,ro "$root$dest"
		done
		exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin \
			LANG=C.UTF-8 bash -euo pipefail -c "$command"
	' in_root "$ROOTS/$name" "$command" "$@"
}
