package broker

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	weida "github.com/weida-go/weida/core"
)

// keeper is where a queue keeps its bodies: in memory, or in the store at
// the queue's durability (persist.go). The queue loop and the admission
// and delivery goroutines call it concurrently.
type keeper interface {
	// certificate is the level a message has reached once admit returned:
	// Accepted in memory, Stored for a persistent queue. A memory keeper
	// cannot return Stored, so a store-less queue never claims it.
	certificate() uint64
	// newBody starts receiving one body.
	newBody() (bodySink, error)
	// admit makes a received body the message m, numbering it (m.id); it
	// returns once m reached certificate(). The sink is spent either way.
	// An error for which recorded holds left m numbered and kept, short
	// of certificate(): its outcome is unknown.
	admit(s bodySink, m *message) error
	// open reads m's body back for a delivery.
	open(m *message) (io.ReadCloser, error)
	// settle forgets m for good: a consumer processed it.
	settle(m *message) error
	// commitDelivery records, before a delivery's first byte goes out,
	// that m is about to be delivered at attempt; an error stops the
	// delivery (a replicated queue whose node lost its quorum).
	commitDelivery(ctx context.Context, m *message, attempt uint64) error
	// attempted records that m's delivery count is now m.attempts.
	attempted(m *message) error
	// quarantine takes m out for good: its body cannot be read as it was
	// admitted (unreadable.go). reason is kept with it.
	quarantine(m *message, reason string) error
	// withdraw forgets an admitted m the queue then refused (it retired
	// meanwhile): the producer was told nothing was taken.
	withdraw(m *message)
	close() error
}

// bodySink receives one body; abort drops what it received.
type bodySink interface {
	io.Writer
	abort()
}

// memBody is a body held in RAM as the exact-size chunks it arrived in, so
// the queue charges what is allocated and nothing is copied to grow it.
type memBody [][]byte

// reader reads the body from its start; the chunks are never written again.
func (b memBody) reader() io.Reader {
	rs := make([]io.Reader, len(b))
	for i, c := range b {
		rs[i] = bytes.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// memKeeper is the keeper of a Memory queue.
type memKeeper struct{ next atomic.Uint64 }

// memSink collects a body's chunks.
type memSink struct{ chunks memBody }

func (s *memSink) Write(p []byte) (int, error) {
	s.chunks = append(s.chunks, bytes.Clone(p))
	return len(p), nil
}

func (s *memSink) abort() { s.chunks = nil }

func (*memKeeper) certificate() uint64        { return weida.Accepted }
func (*memKeeper) newBody() (bodySink, error) { return &memSink{}, nil }
func (*memKeeper) settle(*message) error      { return nil }
func (*memKeeper) attempted(*message) error   { return nil }
func (*memKeeper) commitDelivery(context.Context, *message, uint64) error {
	return nil
}
func (*memKeeper) withdraw(*message) {}
func (*memKeeper) quarantine(*message, string) error {
	return nil // a body in memory cannot fail its read
}
func (*memKeeper) close() error { return nil }
func (*memKeeper) open(m *message) (io.ReadCloser, error) {
	return io.NopCloser(m.body.reader()), nil
}

// admit keeps the chunks and numbers the message.
func (k *memKeeper) admit(s bodySink, m *message) error {
	m.id = k.next.Add(1)
	m.body = s.(*memSink).chunks
	return nil
}
