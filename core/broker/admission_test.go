package broker

import (
	"bytes"
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// BROKER.md §17, admission.

func TestConfirmIsAcceptedWithNoConsumer(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	level, err := p.send(t, "", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if level != weida.Accepted {
		t.Fatalf("confirm level %d, want exactly Accepted (2): a memory queue never says more", level)
	}
	if s := tb.stats(t, "/jobs"); s.Ready != 1 || s.Bytes != PerMessageOverhead+5 {
		t.Fatalf("stats %+v, want 1 ready message charged %d", s, PerMessageOverhead+5)
	}
}

func TestFullQueueRejectsAndTheConnectionKeepsWorking(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 100)
	cfg := queues("/jobs")
	cfg.QueueBytes = PerMessageOverhead + 100 // exactly one message fits
	tb := startBroker(t, cfg)
	url := tb.binding.URL("/jobs")
	p := newProducer(t, url)
	p.mustSend(t, "", body)
	if _, err := p.send(t, "", body); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("second send: %v, want Rejected at the bound", err)
	}
	c := newConsumer(t, url, "", 1)
	c.recv(t).settle(t)
	tb.await(t, "/jobs", "the settlement", func(q *queue) bool { return len(q.unsettled) == 0 && len(q.ready) == 0 })
	p.mustSend(t, "", body) // same requester, same connection
	if p.req.PeerCount() != 1 {
		t.Fatalf("the producer has %d connections after a refusal, want its one", p.req.PeerCount())
	}
}

func TestPayloadLargerThanTheQueueIsRejectedAndNothingBuffered(t *testing.T) {
	cfg := queues("/jobs")
	cfg.QueueBytes = 64 << 10
	tb := startBroker(t, cfg)
	p := newProducer(t, tb.binding.URL("/jobs"))
	if _, err := p.send(t, "", make([]byte, 1<<20)); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("send: %v, want Rejected", err)
	}
	if s := tb.stats(t, "/jobs"); s.Ready != 0 || s.Bytes != 0 || s.Refused != 1 {
		t.Fatalf("stats %+v, want nothing held or charged and one refusal", s)
	}
}

func TestUnregisteredPathIsUnknownEndpoint(t *testing.T) {
	tb := startBroker(t, queues("/jobs"))
	p := newProducer(t, tb.binding.URL("/elsewhere"))
	if _, err := p.send(t, "", []byte("x")); !errors.Is(err, weida.ErrUnknownEndpoint) {
		t.Fatalf("send: %v, want UnknownEndpoint", err)
	}
}

func TestOneWayTransferIsAdmittedSilently(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	if err := p.push.SendWith(ctxFor(t), weida.TransferMeta{Topic: "a.b", ContentType: "text/plain"}, []byte("twelve bytes")); err != nil {
		t.Fatal(err)
	}
	want := int64(PerMessageOverhead + len("a.b") + len("text/plain") + 12)
	tb.await(t, "/jobs", "the admission", func(q *queue) bool { return len(q.ready) == 1 })
	if s := tb.stats(t, "/jobs"); s.Bytes != want {
		t.Fatalf("charged %d, want 256 + topic + content type + body = %d", s.Bytes, want)
	}
}

func TestProducerVanishingMidBodyLeavesNoHalfMessage(t *testing.T) {
	cases := []struct {
		name string
		open func(p *producer) (*weida.OutgoingTransfer, error)
	}{
		{"one-way", func(p *producer) (*weida.OutgoingTransfer, error) {
			return p.push.Open(ctxFor(t), weida.TransferMeta{})
		}},
		{"exchange", func(p *producer) (*weida.OutgoingTransfer, error) {
			out, _, err := p.req.Open(ctxFor(t), weida.TransferMeta{})
			return out, err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, url := startJobs(t)
			// The admission must have begun reading before the reset: a
			// stream reset before its header arrived never reaches the queue.
			// Taking its read buffer is that moment; it happens off the
			// queue's loop, so it is signalled, not awaited on the loop.
			q := tb.byPath["/jobs"]
			reading := make(chan struct{}, 1)
			if err := q.call(ctxFor(t), func() { q.readBufs.onAcquire = func() { reading <- struct{}{} } }); err != nil {
				t.Fatal(err)
			}
			p := newProducer(t, url)
			out, err := c.open(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Write(make([]byte, 100<<10)); err != nil {
				t.Fatal(err)
			}
			select {
			case <-reading:
			case <-ctxFor(t).Done():
				t.Fatal("the admission never began reading the body")
			}
			out.Cancel()
			tb.await(t, "/jobs", "the interrupted admission", func(q *queue) bool { return q.interrupted.Load() == 1 })
			if s := tb.stats(t, "/jobs"); s.Ready != 0 || s.Bytes != 0 {
				t.Fatalf("stats %+v after a reset mid-body, want nothing held or charged", s)
			}
		})
	}
}

func TestConstructionErrors(t *testing.T) {
	rt := newRuntime(t)
	if _, err := rt.Listener().Acceptor("/taken"); err != nil {
		t.Fatal(err)
	}
	many := Config{MaxQueues: 2}
	for _, p := range []string{"/a", "/b", "/c"} {
		many.Queues = append(many.Queues, QueueConfig{Path: p})
	}
	cases := []struct {
		name string
		cfg  Config
		want weida.ErrorKind
	}{
		{"more queues than max_queues", many, weida.KindLimitExceeded},
		{"a path another registration holds", queues("/free", "/taken"), weida.KindAlreadyRegistered},
		{"a path configured twice", queues("/a", "/a"), weida.KindAlreadyRegistered},
		{"an invalid path", queues("no-slash"), weida.KindInvalidEndpointPath},
		{"a stored queue without a data directory", Config{Queues: []QueueConfig{{Path: "/d", Durability: Flushed}}}, weida.KindRuntime},
		{"a negative bound", Config{QueueBytes: -1}, weida.KindRuntime},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := New(rt, c.cfg)
			if err == nil {
				b.Close()
				t.Fatal("New succeeded")
			}
			if kindOf(err) != c.want {
				t.Fatalf("error %v (kind %v), want %v", err, kindOf(err), c.want)
			}
		})
	}
	// A failed construction claimed nothing: the first path is free again.
	b, err := New(rt, queues("/free", "/a"))
	if err != nil {
		t.Fatalf("after the failures: %v", err)
	}
	b.Close()
}
