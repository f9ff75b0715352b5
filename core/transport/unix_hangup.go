//go:build unix

package transport

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// hungUp reports whether fd's peer is gone: POLLHUP, which a unix stream
// socket raises once neither direction can carry more — the peer closed
// its end, or shut the side this end had left open. Unread bytes do not
// hide it, as they hide a peeked EOF.
func hungUp(fd uintptr) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(p, 0)
		if err == unix.EINTR {
			continue
		}
		return err != nil || (n == 1 && p[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0)
	}
}

// peerHungUp reports, without waiting and without touching a Read under
// way on conn (Control takes no lock), whether conn's peer is gone.
func peerHungUp(conn *net.UnixConn) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	if err := raw.Control(func(fd uintptr) { gone = hungUp(fd) }); err != nil {
		return true
	}
	return gone
}

// awaitHangUp waits until conn's peer is gone (true) or conn is closed
// here (false). It is for an end that reads no more: it holds conn's read
// lock while it waits, woken by the poller at each change of the socket's
// state.
func awaitHangUp(conn *net.UnixConn) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	return raw.Read(func(fd uintptr) bool { return hungUp(fd) }) == nil
}

// writeNow writes b in one attempt that never waits for room: false when
// the socket took less than all of it (or nothing, being full).
func writeNow(conn *net.UnixConn, b []byte) bool {
	raw, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	if err := raw.Write(func(fd uintptr) bool {
		for {
			var werr error
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	}); err != nil {
		return false
	}
	return n == len(b)
}
