package broker

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// The read buffers' bound (admission_buffers.go): at most
// lendableChunks(QueueBytes) full buffers out at once, the rest of a burst
// read through small ones, and nothing waits, drops or is refused.

// burstBodyBytes is each burst message's body: several small buffers
// long, so the small readers read more than once and can swap.
const burstBodyBytes = 3 * smallChunk

// burstBody is message i's body, distinct per message so a mixed-up chunk
// shows.
func burstBody(i int) []byte {
	tag := []byte(fmt.Sprintf("<%03d>", i))
	return bytes.Repeat(tag, burstBodyBytes/len(tag)+1)[:burstBodyBytes]
}

// halfOpen is one burst message in flight: its request half, still
// open, and its reply.
type halfOpen struct {
	out   *weida.OutgoingTransfer
	reply *weida.ReplyStream
	body  []byte
}

func TestABurstBeyondTheLendableBuffersIsConfirmedAndStaysWithinThem(t *testing.T) {
	const queueBytes = 1 << 20 // 16 full buffers
	limit := int(lendableChunks(queueBytes))
	cases := []struct {
		name                 string
		producers, perSender int
	}{
		{"all on one connection", 1, 3 * limit},
		{"many producers", 3 * limit / 4, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := queues("/jobs")
			cfg.QueueBytes = queueBytes
			tb := startBroker(t, cfg)
			q := tb.byPath["/jobs"]
			acquired := make(chan struct{}, c.producers*c.perSender)
			if err := q.call(ctxFor(t), func() { q.readBufs.onAcquire = func() { acquired <- struct{}{} } }); err != nil {
				t.Fatal(err)
			}
			url := tb.binding.URL("/jobs")
			// Each message is opened with a first piece of its body and
			// holds its buffer, so the first limit hold the full ones.
			var burst []halfOpen
			for range c.producers {
				p := newProducer(t, url)
				for range c.perSender {
					burst = append(burst, openHalfway(t, p, burstBody(len(burst)), acquired))
				}
			}
			n := len(burst)
			if lent, small, peak := q.readBufs.lent.Load(), q.readBufs.small.Load(), q.readBufs.peak.Load(); lent != int64(limit) || small != uint64(n-limit) || peak != int64(limit) {
				t.Fatalf("with %d admissions reading: %d full buffers out (peak %d), %d small; want %d full and %d small",
					n, lent, peak, small, limit, n-limit)
			}
			// The full holders end first, and return their buffers; then
			// the small readers, which swap for the freed ones.
			finishAll(t, burst[:limit])
			finishAll(t, burst[limit:])
			if lent, peak, ups := q.readBufs.lent.Load(), q.readBufs.peak.Load(), q.readBufs.upgrades.Load(); lent != 0 || peak != int64(limit) || ups == 0 {
				t.Fatalf("after the burst: %d full buffers out, peak %d, %d swaps; want 0 out, peak %d and at least one swap",
					lent, peak, ups, limit)
			}
			if s := tb.stats(t, "/jobs"); s.Ready != n || s.Refused != 0 || s.Bytes != int64(n*(PerMessageOverhead+burstBodyBytes)) {
				t.Fatalf("stats %+v, want all %d messages held, none refused", s, n)
			}
			consumeExactly(t, url, burst)
		})
	}
}

// openHalfway opens an exchange carrying body, writes its first piece and
// waits until the broker's admission took a buffer for it.
func openHalfway(t *testing.T, p *producer, body []byte, acquired <-chan struct{}) halfOpen {
	t.Helper()
	out, reply, err := p.req.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write(body[:smallChunk/4]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-acquired:
	case <-ctxFor(t).Done():
		t.Fatal("the broker never began reading the message")
	}
	return halfOpen{out: out, reply: reply, body: body}
}

// finishAll writes the rest of every body, at once, and requires each
// confirm to be Accepted.
func finishAll(t *testing.T, burst []halfOpen) {
	t.Helper()
	var wg sync.WaitGroup
	for _, ex := range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := finishAndConfirm(ctxFor(t), ex); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

func finishAndConfirm(ctx context.Context, ex halfOpen) error {
	if _, err := ex.out.Write(ex.body[smallChunk/4:]); err != nil {
		return fmt.Errorf("write %.5q: %w", ex.body, err)
	}
	if _, err := ex.out.Finish(); err != nil {
		return fmt.Errorf("finish %.5q: %w", ex.body, err)
	}
	in, err := ex.reply.Recv(ctx)
	if err != nil {
		return fmt.Errorf("confirm of %.5q: %w", ex.body, err)
	}
	if level, _ := in.Meta().Achieved(); level != weida.Accepted {
		return fmt.Errorf("confirm of %.5q at level %d, want Accepted", ex.body, level)
	}
	return nil
}

// consumeExactly takes every message once and requires each body intact,
// however its buffers changed on the way in.
func consumeExactly(t *testing.T, url string, burst []halfOpen) {
	t.Helper()
	want := map[string]bool{}
	for _, ex := range burst {
		want[string(ex.body)] = true
	}
	c := newConsumer(t, url, "", uint64(len(burst)))
	for range burst {
		r := c.recv(t)
		if !want[string(r.body)] {
			t.Fatalf("delivered %.20q… (%d bytes), not a body sent or a repeat", r.body, len(r.body))
		}
		delete(want, string(r.body))
		r.settle(t)
	}
}

// TestBodiesBeyondTheBuffersOnOneNarrowConnectionAllArrive is why no admission waits
// for a buffer: one connection, small receive windows, and more bodies at
// once than the queue lends buffers, whose unread bytes exceed the
// connection's window. Were the late comers to wait, their unread bytes
// would hold the window the buffer holders need, and nothing would finish.
func TestBodiesBeyondTheBuffersOnOneNarrowConnectionAllArrive(t *testing.T) {
	const (
		connWindow = 256 << 10
		queueBytes = 512 << 10 // 8 full buffers
		bodyBytes  = 16 << 10
		messages   = 28 // 20 beyond the buffers, 320 KiB unread > the window
	)
	rt, err := weida.NewRuntime(weida.Config{Limits: weida.Limits{StreamReceiveWindow: 64 << 10, ConnectionReceiveWindow: connWindow}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	tb := serveBroker(t, rt, Config{Queues: []QueueConfig{{Path: "/jobs"}}, QueueBytes: queueBytes})
	p := newProducer(t, tb.binding.URL("/jobs"))
	var wg sync.WaitGroup
	for i := range messages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.req.Request(ctxFor(t), bytes.Repeat([]byte{byte(i)}, bodyBytes), 16); err != nil {
				t.Errorf("message %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if s := tb.stats(t, "/jobs"); s.Ready != messages {
		t.Fatalf("stats %+v, want all %d messages held", s, messages)
	}
}

// serveBroker is startBroker on a runtime the test configured.
func serveBroker(t *testing.T, rt *weida.Runtime, cfg Config) *testBroker {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(rt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = b.Serve(context.Background())
	}()
	t.Cleanup(func() {
		b.Close()
		<-served
	})
	return &testBroker{Broker: b, rt: rt, binding: binding}
}
