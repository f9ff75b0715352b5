//go:build linux

package transport

import (
	"net"
	"syscall"
)

// peerCredentials asks the kernel who is at the other end of conn
// (SO_PEERCRED: uid, gid and pid captured at connect).
func peerCredentials(conn *net.UnixConn) (LocalPeer, bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return LocalPeer{}, false
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return LocalPeer{}, false
	}
	return LocalPeer{UID: cred.Uid, GID: cred.Gid, PID: cred.Pid}, true
}
