//go:build unix

package transport

import (
	"net"
	"syscall"
)

// peerClosed reports whether the peer closed conn, without consuming
// anything and without waiting: a zero-byte peek is the peer's EOF. It uses
// Control, not Read, so it runs beside a Read blocked on the same socket.
func peerClosed(conn *net.UnixConn) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	if err := raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = (n == 0 && err == nil) || (err != nil && err != syscall.EAGAIN && err != syscall.EWOULDBLOCK && err != syscall.EINTR)
	}); err != nil {
		return true
	}
	return closed
}
