package transport

import (
	"context"
	"io"

	"github.com/quic-go/quic-go"
)

// The stream halves below are what the stream types need from a transport.
// quic-go's streams satisfy them as they are (no wrapper on the QUIC path);
// the local transports implement them with quic-go's code and error types,
// so error mapping (errors.go) is one function for every transport.

// sendHalf is what both *quic.SendStream and *quic.Stream offer a writer.
type sendHalf interface {
	io.Writer
	Close() error
	CancelWrite(quic.StreamErrorCode)
	StreamID() quic.StreamID
}

// recvHalf is what both *quic.ReceiveStream and *quic.Stream offer a reader.
type recvHalf interface {
	io.Reader
	CancelRead(quic.StreamErrorCode)
}

// bidiHalf is one end of an exchange. Its Context ends when this end's
// sending side closed, was reset, or was stopped by the peer.
type bidiHalf interface {
	sendHalf
	recvHalf
	Context() context.Context
}

// cursorSink is what an outgoing CURSOR stream writes to.
type cursorSink interface {
	io.Writer
	TryWriteAll([]byte) error
	Close() error
}
