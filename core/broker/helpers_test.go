package broker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// The helpers of core's own tests cannot be imported across packages;
// these are the few the broker's tests need.

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newRuntime starts a plain runtime shut down when the test ends.
func newRuntime(t *testing.T) *weida.Runtime { return newRuntimeWith(t, weida.Config{}) }

// newRuntimeWith starts a runtime with cfg, shut down when the test ends.
func newRuntimeWith(t *testing.T, cfg weida.Config) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

// testBroker is a served broker on loopback.
type testBroker struct {
	*Broker
	rt      *weida.Runtime
	binding *weida.Binding
}

// startBroker binds a fresh runtime built by RuntimeConfig on loopback
// and serves a broker under cfg; every queue defaults to Memory. It closes
// when the test ends.
func startBroker(t *testing.T, cfg Config) *testBroker {
	t.Helper()
	return startBrokerOn(t, RuntimeConfig(weida.Config{}, cfg), cfg)
}

// startBrokerOn is startBroker on a runtime configured with rtCfg.
func startBrokerOn(t *testing.T, rtCfg weida.Config, cfg Config) *testBroker {
	t.Helper()
	rt := newRuntimeWith(t, rtCfg)
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	br, err := New(rt, cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	serveUntilCleanup(t, br)
	return &testBroker{Broker: br, rt: rt, binding: b}
}

// serveUntilCleanup serves br until the test ends, then closes it and
// waits for Serve to return.
func serveUntilCleanup(t *testing.T, br *Broker) {
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = br.Serve(context.Background())
	}()
	t.Cleanup(func() {
		br.Close()
		<-served
	})
}

// queues is a Config of memory queues at paths.
func queues(paths ...string) Config {
	var c Config
	for _, p := range paths {
		c.Queues = append(c.Queues, QueueConfig{Path: p})
	}
	return c
}

// startJobs serves a broker with one memory queue at /jobs, the setup of
// most tests, and returns it with the queue's URL.
func startJobs(t *testing.T) (*testBroker, string) {
	t.Helper()
	tb := startBroker(t, queues("/jobs"))
	return tb, tb.binding.URL("/jobs")
}

// await waits until cond holds on the queue's loop.
func (tb *testBroker) await(t *testing.T, path string, what string, cond func(q *queue) bool) {
	t.Helper()
	q := tb.byPath[path]
	if err := q.await(ctxFor(t), func() bool { return cond(q) }); err != nil {
		t.Fatalf("waiting for %s at %s: %v", what, path, err)
	}
}

// awaitConsumers waits until the queue has n subscriptions.
func (tb *testBroker) awaitConsumers(t *testing.T, path string, n int) {
	t.Helper()
	tb.await(t, path, fmt.Sprintf("%d subscriptions", n), func(q *queue) bool { return len(q.consumers.list) == n })
}

// awaitCredit waits until the queue has n subscriptions, each granted
// limit: a grant is a stream of its own, which may arrive after the
// messages a test sends next.
func (tb *testBroker) awaitCredit(t *testing.T, path string, n int, limit uint64) {
	t.Helper()
	tb.await(t, path, fmt.Sprintf("%d subscriptions granted %d", n, limit), func(q *queue) bool {
		if len(q.consumers.list) != n {
			return false
		}
		for _, s := range q.consumers.list {
			if s.limit < limit {
				return false
			}
		}
		return true
	})
}

// awaitSettled waits until the queue has no delivery out.
func (tb *testBroker) awaitSettled(t *testing.T, path string) {
	t.Helper()
	tb.await(t, path, "the settlements", func(q *queue) bool { return len(q.unsettled) == 0 })
}

// awaitRequeued waits until the queue's one message is held again, with
// no delivery out.
func (tb *testBroker) awaitRequeued(t *testing.T, path string) {
	t.Helper()
	tb.await(t, path, "the message held again", func(q *queue) bool { return len(q.ready) == 1 && len(q.unsettled) == 0 })
}

// retireBegun starts Retire with a deadline after within and returns once
// the queue at path is retiring; Retire's result comes on the channel.
func (tb *testBroker) retireBegun(t *testing.T, path string, within time.Duration) <-chan Retired {
	t.Helper()
	done := make(chan Retired, 1)
	go func() { done <- tb.Retire(time.Now().Add(within)) }()
	tb.await(t, path, "retire begun", func(q *queue) bool { return q.retiring != nil })
	return done
}

// stats reads the queue's stats.
func (tb *testBroker) stats(t *testing.T, path string) QueueStats {
	t.Helper()
	s, err := tb.Stats(ctxFor(t), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// producer is a requester (exchanges) and a pusher (one-way) dialled to a
// queue.
type producer struct {
	rt   *weida.Runtime
	req  *weida.Requester
	push *weida.Pusher
}

func newProducer(t *testing.T, url string) *producer {
	t.Helper()
	rt := newRuntime(t)
	p := &producer{rt: rt, req: rt.Requester(weida.TrustByAddress()), push: rt.Pusher(weida.TrustByAddress())}
	if err := p.req.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	if err := p.push.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	return p
}

// send is an exchange: it returns the confirmed level, or the refusal.
func (p *producer) send(t *testing.T, topic string, body []byte) (uint64, error) {
	t.Helper()
	_, meta, err := p.req.RequestWith(ctxFor(t), weida.TransferMeta{Topic: topic}, body, 1024)
	if err != nil {
		return 0, err
	}
	level, ok := meta.Achieved()
	if !ok {
		t.Fatal("the confirm carries no achieved level (key 8)")
	}
	return level, nil
}

// mustSend sends and requires the Accepted confirm.
func (p *producer) mustSend(t *testing.T, topic string, body []byte) {
	t.Helper()
	p.mustSendLevel(t, weida.Accepted, topic, body)
}

// mustSendLevel sends and requires a confirm at level.
func (p *producer) mustSendLevel(t *testing.T, level uint64, topic string, body []byte) {
	t.Helper()
	got, err := p.send(t, topic, body)
	if err != nil {
		t.Fatalf("send %q: %v", body, err)
	}
	if got != level {
		t.Fatalf("confirm level %d, want %d", got, level)
	}
}

// pushReporting sends one-way with a report order and returns its Cursors.
func (p *producer) pushReporting(t *testing.T, topic string, body []byte, levels ...uint64) *weida.Cursors {
	t.Helper()
	out, err := p.push.Open(ctxFor(t), weida.TransferMeta{Topic: topic, Report: weida.ReportOrder{Levels: levels}})
	if err != nil {
		t.Fatal(err)
	}
	return sendAll(t, out, body)
}

// sendAll writes body on out and finishes it; it returns out's cursors
// (nil for an empty order), closed when the test ends.
func sendAll(t *testing.T, out *weida.OutgoingTransfer, body []byte) *weida.Cursors {
	t.Helper()
	c := out.Cursors()
	if c != nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	if _, err := out.Write(body); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	return c
}

// exchange opens an exchange that orders order, sends body and returns the
// confirm, which must carry key 8 = Accepted, and the report's cursors
// (nil for an empty order; closed when the test ends).
func (p *producer) exchange(t *testing.T, order weida.ReportOrder, body []byte) (*weida.IncomingTransfer, *weida.Cursors) {
	t.Helper()
	out, reply, err := p.req.Open(ctxFor(t), weida.TransferMeta{Report: order})
	if err != nil {
		t.Fatal(err)
	}
	c := sendAll(t, out, body)
	in, err := reply.Recv(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if level, ok := in.Meta().Achieved(); !ok || level != weida.Accepted {
		t.Fatalf("confirm key 8 = %d (present %v), want Accepted", level, ok)
	}
	return in, c
}

// finalReport waits for a report to end and returns what it said.
func finalReport(t *testing.T, c *weida.Cursors) map[uint64]uint64 {
	t.Helper()
	for {
		_, more, err := c.Changed(ctxFor(t))
		if err != nil {
			t.Fatalf("the report did not end: %v", err)
		}
		if !more {
			return c.Snapshot()
		}
	}
}

// awaitLevel waits until the report shows level and returns its offset.
func awaitLevel(t *testing.T, c *weida.Cursors, level uint64) uint64 {
	t.Helper()
	for {
		if off, ok := c.Offset(level); ok {
			return off
		}
		_, more, err := c.Changed(ctxFor(t))
		if err != nil || !more {
			t.Fatalf("level %d never came (err %v); report %v", level, err, c.Snapshot())
		}
	}
}

// consumer is a subscriber of a queue.
type consumer struct {
	*weida.Subscriber
}

// newConsumer subscribes to url with filter and grants credit (0: none).
func newConsumer(t *testing.T, url, filter string, credit uint64) *consumer {
	t.Helper()
	s := newRuntime(t).Subscriber(weida.TrustByAddress())
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), filter); err != nil {
		t.Fatal(err)
	}
	if credit > 0 {
		if err := s.Grant(ctxFor(t), credit); err != nil {
			t.Fatal(err)
		}
	}
	return &consumer{s}
}

// received is one delivery a consumer took.
type received struct {
	body    []byte
	meta    weida.IncomingMeta
	report  *weida.Reporter
	attempt uint64
}

// recv takes the next delivery.
func (c *consumer) recv(t *testing.T) received {
	t.Helper()
	body, meta, r, err := c.RecvReporting(ctxFor(t), 1<<20)
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	if r == nil {
		t.Fatal("a queue delivery ordered no report")
	}
	attempt, _ := meta.DeliveryAttempt()
	return received{body: body, meta: meta, report: r, attempt: attempt}
}

// settle reports Processed at the body's length and finishes the report.
func (r received) settle(t *testing.T) {
	t.Helper()
	if err := r.report.Report(weida.Processed, uint64(len(r.body))); err != nil {
		t.Fatal(err)
	}
	if err := r.report.Finish(); err != nil {
		t.Fatal(err)
	}
}

// reject gives the message back: Processed at 0, below the body's length,
// so nothing was processed. (A report with nothing in it opens no stream,
// which the queue cannot tell from a consumer still at work.)
func (r received) reject(t *testing.T) {
	t.Helper()
	if err := r.report.Report(weida.Processed, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.report.Finish(); err != nil {
		t.Fatal(err)
	}
}

// nothingWithin asserts the consumer receives nothing for a short while.
// A negative assertion has no event to wait for; the bound is short and
// the state that makes it true was established before (by await).
func (c *consumer) nothingWithin(t *testing.T, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	body, _, _, err := c.RecvReporting(ctx, 1<<20)
	if err == nil {
		t.Fatalf("received %q, want nothing", body)
	}
	if !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("recv: %v, want Canceled at the bound", err)
	}
}

// kindOf names err's kind for messages.
func kindOf(err error) weida.ErrorKind { return weida.KindOf(err) }
