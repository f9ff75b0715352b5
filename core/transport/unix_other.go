//go:build !unix

package transport

import (
	"net"

	"github.com/weida-go/weida/core/errs"
)

// listenUnixSocket: this build binds unix sockets on unix systems only.
func listenUnixSocket(path string) (*net.UnixListener, error) {
	return nil, errs.New(errs.KindInvalidAddress, "cannot bind %s: unix sockets are not supported on this system", path)
}

// peerClosed: without a peek, a live group is assumed.
func peerClosed(*net.UnixConn) bool { return false }

// peerHungUp: without poll, a live peer is assumed.
func peerHungUp(*net.UnixConn) bool { return false }

// awaitHangUp: without poll, a peer's leaving is learned from writes only.
func awaitHangUp(*net.UnixConn) bool { return false }

// writeNow: without a non-blocking write, the caller cuts the stream.
func writeNow(*net.UnixConn, []byte) bool { return false }

// peekHead: without a peek, nothing is seen.
func peekHead(*net.UnixConn, int, bool) []byte { return nil }
