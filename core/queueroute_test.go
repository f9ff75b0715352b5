package weida

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"
)

// queueTestCtx bounds a test's waits, so a call that blocks fails the test
// instead of hanging it.
func queueTestCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// realInbound pushes n small messages to a puller and takes them off its
// queue unread: real one-way transfers, each pinning a stream of the
// pusher's budget, to hand to another queue.
func realInbound(t *testing.T, n int) []inbound {
	items, _ := realInboundFrom(t, n)
	return items
}

// realInboundFrom is realInbound that also returns the pushing runtime, so
// a test can end the connection the items came over.
func realInboundFrom(t *testing.T, n int) ([]inbound, *Runtime) {
	t.Helper()
	ctx := queueTestCtx(t)
	server, b, client := boundAndDialling(t, Config{})
	pull, err := server.Listener().Puller("/jobs")
	if err != nil {
		t.Fatal(err)
	}
	push := client.Pusher(TrustByAddress())
	if err := push.Connect(ctx, b.URL("/jobs")); err != nil {
		t.Fatal(err)
	}
	items := make([]inbound, n)
	for i := range items {
		if err := push.Send(ctx, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if items[i], err = pull.q.next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return items, client
}

// boundAndDialling is a runtime bound on QUIC loopback under cfg and
// another to dial it, both shut down at the test's end.
func boundAndDialling(t *testing.T, cfg Config) (server *Runtime, b *Binding, client *Runtime) {
	t.Helper()
	server, err := NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Shutdown)
	id, err := GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if b, err = server.Listener().BindQUIC("127.0.0.1:0", id); err != nil {
		t.Fatal(err)
	}
	if client, err = NewRuntime(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Shutdown)
	return server, b, client
}

// enqueueAll enqueues items on another goroutine and fails the test if
// that does not finish: a full queue must take what arrives without
// holding the caller (the accept goroutine) until there is room.
func enqueueAll(t *testing.T, q *queueRoute, items []inbound) {
	t.Helper()
	done := make(chan bool, 1)
	go func() {
		all := true
		for _, it := range items {
			all = q.enqueue(it) && all
		}
		done <- all
	}()
	select {
	case all := <-done:
		if !all {
			t.Fatal("an open queue did not take an item")
		}
	case <-queueTestCtx(t).Done():
		t.Fatal("enqueue blocked at a full queue")
	}
}

func TestAFullQueueParksInArrivalOrder(t *testing.T) {
	const depth, n = 2, 6
	items := realInbound(t, n)
	q := newQueueRoute(depth, true, false)
	enqueueAll(t, q, items)
	if got := q.nParked.Load(); got != n-depth {
		t.Fatalf("%d items parked, want %d beyond the queue's depth", got, n-depth)
	}
	ctx := queueTestCtx(t)
	for i, want := range items {
		it, err := q.next(ctx)
		if err != nil {
			t.Fatalf("next %d: %v", i, err)
		}
		if it.data != want.data {
			t.Fatalf("item %d came out of order", i)
		}
		// Read, not AppendWhole: the last message's FIN may still be on
		// its way (the item was dispatched at its header).
		body, err := io.ReadAll(io.LimitReader(it.data, 64))
		if err != nil || len(body) != 1 || body[0] != byte(i) {
			t.Fatalf("item %d: payload %v (%v), want [%d]", i, body, err, i)
		}
	}
	if got := q.nParked.Load(); got != 0 {
		t.Fatalf("%d items still parked after every one was taken", got)
	}
}

func TestClosingAQueueRefusesWhatIsParked(t *testing.T) {
	items := realInbound(t, 3)
	q := newQueueRoute(1, true, false)
	enqueueAll(t, q, items)
	q.close()
	for i, it := range items {
		// A refused transfer hands out nothing more: its read fails.
		if _, err := it.data.Read(make([]byte, 8)); err == nil {
			t.Fatalf("item %d could still be read after the queue closed", i)
		}
	}
	if q.enqueue(items[0]) {
		t.Fatal("a closed queue took an item")
	}
	if _, err := q.next(queueTestCtx(t)); err == nil {
		t.Fatal("next on a closed queue returned an item")
	}
}

// What a connection parked goes when the connection ends, though nobody
// reads the queue: its peer gets a fresh stream budget on its next
// connection, so parked streams must not outlive theirs.
func TestAConnectionsEndDropsWhatItParked(t *testing.T) {
	items, client := realInboundFrom(t, 5)
	q := newQueueRoute(1, true, false)
	swept := make(chan struct{}, 1)
	q.onSwept = func() { swept <- struct{}{} }
	enqueueAll(t, q, items)
	client.Shutdown()
	select {
	case <-swept:
	case <-queueTestCtx(t).Done():
		t.Fatal("the connection's end swept nothing")
	}
	if got := q.nParked.Load(); got != 0 {
		t.Fatalf("%d items still parked after their connection ended", got)
	}
	for i, it := range items[1:] {
		if _, err := it.data.Read(make([]byte, 8)); err == nil {
			t.Fatalf("parked item %d could still be read after the sweep", i+1)
		}
	}
}

// A transfer that reaches an endpoint as it closes is refused, not left in
// its queue: close empties the queue once, and an enqueue that passed the
// closed check before it could land after that emptying, leaving the
// transfer unread with its stream's credit held for as long as the
// connection lived (a pusher's drain then waited to its deadline).
func TestATransferArrivingAsItsPullerClosesIsNotLeftInTheQueue(t *testing.T) {
	items, _ := realInboundFrom(t, 1)
	srv, err := NewRuntime(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	raceArrivalAgainstClose(t, "transfer(s)", func(int) (arrive, closeIt func(), left func() int) {
		p, err := srv.Listener().Puller("/race")
		if err != nil {
			t.Fatal(err)
		}
		r := srv.Listener().lookup("/race") // what a connection's router found
		return func() { dispatchData(srv, r, items[0].data) }, func() { _ = p.Close() },
			func() int { return len(p.q.items) }
	})
}

// raceArrivalAgainstClose runs 5000 rounds of an arrival at an endpoint and
// that endpoint's close side by side, each set up afresh by round, and
// fails the first round that leaves what arrived in the closed endpoint's
// queue (left counts it), neither refused nor taken.
func raceArrivalAgainstClose(t *testing.T, what string, round func(trial int) (arrive, closeIt func(), left func() int)) {
	t.Helper()
	for trial := range 5000 {
		arrive, closeIt, left := round(trial)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { <-start; arrive() })
		wg.Go(func() { <-start; closeIt() })
		close(start)
		wg.Wait()
		if n := left(); n > 0 {
			t.Fatalf("trial %d: %d %s left in a closed endpoint's queue, neither refused nor taken", trial, n, what)
		}
	}
}
