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

// peekFd peeks at most len(b) bytes waiting on fd, without consuming or
// waiting: (0, nil) is the peer's EOF, EAGAIN an empty socket.
func peekFd(fd uintptr, b []byte) (int, error) {
	for {
		n, _, err := syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

func isEmpty(err error) bool { return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK }

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
		n, err := peekFd(fd, b[:])
		closed = (n == 0 && err == nil) || (err != nil && !isEmpty(err))
	}); err != nil {
		return true
	}
	return closed
}

// peekHead returns the first bytes waiting on conn, at most max, leaving
// them there; none at the peer's EOF or on an error. With wait it waits
// for something to arrive (holding conn's read lock), else it only looks.
func peekHead(conn *net.UnixConn, max int, wait bool) []byte {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil
	}
	b := make([]byte, max)
	n := 0
	peek := func(fd uintptr) bool {
		var err error
		n, err = peekFd(fd, b)
		if err != nil {
			n = 0
			return !wait || !isEmpty(err) // an empty socket is waited out
		}
		return true
	}
	if wait {
		err = raw.Read(peek)
	} else {
		err = raw.Control(func(fd uintptr) { peek(fd) })
	}
	if err != nil {
		return nil
	}
	return b[:n]
}
