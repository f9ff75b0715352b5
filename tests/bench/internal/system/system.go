// Package system is the contract between the benchmark harness and the
// messaging stacks it measures. A System starts the serving side of a
// workload (returning an address) and dials the client side to such an
// address, so the harness can put the two in one process or in two. Every
// System does the same work the same way its users would: the harness only
// drives and times it.
package system

import (
	"context"
	"io"
)

// System is one messaging stack under test.
type System interface {
	// Name is the stack's short name in reports ("weida", "quic-go", …).
	Name() string

	// StartEcho serves requests of at most maxSize bytes, answering each
	// with its own bytes.
	StartEcho(ctx context.Context, maxSize int) (Server, error)
	// DialEcho connects a requester to an echo server.
	DialEcho(ctx context.Context, addr string, maxSize int) (Requester, error)

	// StartSink receives one-way messages of at most maxSize bytes and
	// reports each one's size (or the error that cut it short) to received,
	// which may be called concurrently.
	StartSink(ctx context.Context, maxSize int, received func(n int, err error)) (Server, error)
	// DialSource connects one producer to a sink.
	DialSource(ctx context.Context, addr string) (Sender, error)

	// StartPublisher binds a publisher for payloads of at most maxSize bytes.
	StartPublisher(ctx context.Context, maxSize int) (Publisher, error)
	// DialSubscribers connects n subscribers, each on its own connection
	// and taking every publication, and hands each payload to received
	// with the subscriber's index (the payload is valid only during the
	// call; calls for different subscribers may run concurrently). One
	// call makes them all so a stack may serve them the way its users
	// would serve many sockets in one process.
	DialSubscribers(ctx context.Context, addr string, n, maxSize int, received func(i int, payload []byte)) (io.Closer, error)

	// StartBulkSink receives one bulk transfer and reports its byte count,
	// or the error that cut it short, to done once it ended.
	StartBulkSink(ctx context.Context, done func(n int64, err error)) (Server, error)
	// DialBulk connects the sending side of a bulk transfer.
	DialBulk(ctx context.Context, addr string) (BulkSender, error)
}

// Server is the serving side of a workload.
type Server interface {
	// Addr is what the matching Dial function takes.
	Addr() string
	io.Closer
}

// Requester runs request/reply round trips.
type Requester interface {
	// Request sends payload and waits for the whole reply, failing unless
	// the reply has the payload's length.
	Request(ctx context.Context, payload []byte) error
	io.Closer
}

// Sender sends one-way messages.
type Sender interface {
	// Send sends payload as one message; it returns once the stack took
	// it, without waiting for the receiver.
	Send(ctx context.Context, payload []byte) error
	io.Closer
}

// Publisher fans publications out to its subscribers.
type Publisher interface {
	Server
	// Publish sends payload to every subscriber; it does not wait for them.
	Publish(payload []byte) error
	// Dropped counts copies the publisher dropped (0 for stacks that
	// never drop or cannot tell).
	Dropped() uint64
}

// BulkSender sends one large transfer.
type BulkSender interface {
	// Send streams total bytes, written in chunks of chunk, and returns
	// once the stack took the last byte; the sink may still be reading.
	Send(ctx context.Context, total int64, chunk []byte) error
	io.Closer
}
