package raftlayer

import (
	"context"
	"net"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// streamConn is one QUIC stream as the net.Conn Raft's transport expects.
type streamConn struct {
	*quic.Stream
	conn *quic.Conn
}

func (s streamConn) LocalAddr() net.Addr  { return s.conn.LocalAddr() }
func (s streamConn) RemoteAddr() net.Addr { return s.conn.RemoteAddr() }

// Close ends both directions: Raft closes a connection it is done with,
// and a read half left open would keep the peer's writes buffered here.
func (s streamConn) Close() error {
	s.Stream.CancelRead(codeClosed)
	return s.Stream.Close()
}

// StreamKind is what a stream of a group carries; it is the first byte of
// the stream's preamble.
type StreamKind byte

// The kinds of group stream.
const (
	// KindRaft carries hashicorp/raft's RPCs.
	KindRaft StreamKind = 0
	// KindFetch carries one request for data kept beside the log (a
	// replicated queue's message bodies) and its answer.
	KindFetch StreamKind = 1
)

// Stream is a fetch stream: a net.Conn that knows the member at its other
// end and can close that member's whole connection when it breaks the
// protocol.
type Stream struct {
	streamConn
	peer identity.Fingerprint
}

// Peer is the key of the member at the other end.
func (s *Stream) Peer() identity.Fingerprint { return s.peer }

// CloseConnection closes the QUIC connection the stream belongs to, every
// group's streams on it included, saying why: what a member that sends
// malformed data gets. It redials (and is verified) afresh.
func (s *Stream) CloseConnection(reason string) {
	s.conn.CloseWithError(closeBadFrame, reason)
}

// ConnectionContext is done when the stream's connection ends;
// context.Cause says why.
func (s *Stream) ConnectionContext() context.Context { return s.conn.Context() }
