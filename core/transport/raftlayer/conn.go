package raftlayer

import (
	"net"

	"github.com/quic-go/quic-go"
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
