package quicsys

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Queue is the wire ceiling of a queue exchange: a raw quic-go server that
// answers every bidirectional stream, read to its FIN, with a short confirm
// and FIN, storing nothing. weida's producer gives every message its own
// stream and waits for the confirm on it, so no queue on that wire confirms
// faster than this on the same machine.
type Queue struct{}

// Name implements system.QueueSystem.
func (Queue) Name() string { return "quic-go exchange" }

// Available implements system.QueueSystem: raw quic-go runs anywhere.
func (Queue) Available() string { return "" }

// WithoutConsumer implements system.WithoutConsumer.
func (Queue) WithoutConsumer() string {
	return "a wire reference: it stores nothing, so there is nothing to consume"
}

// confirmLen is the most bytes of a message its confirm echoes: the
// sequence number the harness puts first, so a producer can tell that the
// confirm it read is its own message's.
const confirmLen = 8

// confirmOf is the confirm a message of payload gets.
func confirmOf(payload []byte) []byte { return payload[:min(len(payload), confirmLen)] }

// StartQueue implements system.QueueSystem. A connection's streams are
// served one after another in its accept loop: faster here than a
// goroutine per stream, and the exchanges still overlap on the wire.
func (Queue) StartQueue(_ context.Context, _ string, maxSize int) (system.Server, error) {
	return System{}.listen(func(ctx context.Context, c *quic.Conn) { serveConcurrently(ctx, c, maxSize) })
}

// exchangeProducer is one client connection running one exchange per
// message.
type exchangeProducer struct {
	c         *quic.Conn
	confirmed func(error)
}

// DialProducer implements system.QueueSystem.
func (Queue) DialProducer(ctx context.Context, addr string, confirmed func(error)) (system.Producer, error) {
	c, err := System{}.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &exchangeProducer{c: c, confirmed: confirmed}, nil
}

// Publish runs one exchange and checks that the confirm is the message's.
func (p *exchangeProducer) Publish(ctx context.Context, payload []byte) error {
	var reply [confirmLen + 1]byte
	n, err := exchange(ctx, p.c, payload, reply[:])
	if err != nil {
		return fmt.Errorf("quic-go exchange: %w", err)
	}
	if want := confirmOf(payload); !bytes.Equal(reply[:n], want) {
		return fmt.Errorf("quic-go exchange: the confirm %x is not the message's (%x)", reply[:n], want)
	}
	return nil
}

// PublishAsync runs the exchange on a goroutine of its own, as weida's
// producer does: exchanges run concurrently, each on its own stream, each
// sending a copy (the caller's buffer is its own again on return).
func (p *exchangeProducer) PublishAsync(ctx context.Context, payload []byte) error {
	payload = bytes.Clone(payload)
	go func() { p.confirmed(p.Publish(ctx, payload)) }()
	return nil
}

func (p *exchangeProducer) Close() error { return closeConn(p.c) }

// errNoConsumer is DialConsumer's answer.
var errNoConsumer = errors.New("quic-go exchange: " + Queue{}.WithoutConsumer())

// DialConsumer implements system.QueueSystem: there is none.
func (Queue) DialConsumer(context.Context, string, int, func([]byte)) (io.Closer, error) {
	return nil, errNoConsumer
}

// serveConcurrently answers each exchange on its own goroutine, as a
// broker admits each message: read in accept order, 256 exchanges of
// 64 KiB would fill the connection's 16 MiB window with the data of streams
// not yet read and stall the one being read.
func serveConcurrently(ctx context.Context, c *quic.Conn, maxSize int) {
	bufs := sync.Pool{New: func() any { b := make([]byte, maxSize+1); return &b }}
	for {
		s, err := c.AcceptStream(ctx)
		if err != nil {
			return
		}
		go func() {
			buf := bufs.Get().(*[]byte)
			defer bufs.Put(buf)
			n, err := system.ReadWhole(s, *buf)
			if err == nil {
				_, err = s.Write(confirmOf((*buf)[:n]))
			}
			if err != nil {
				s.CancelRead(abortCode)
				s.CancelWrite(abortCode)
				return
			}
			_ = s.Close()
		}()
	}
}
