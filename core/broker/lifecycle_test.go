package broker

import (
	"context"
	"runtime"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// settleGoroutines waits for the goroutine count to fall back to baseline.
// Goroutines end asynchronously after Shutdown and nothing signals the last
// one, so this polls, bounded: the one wait on time in these tests.
func settleGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines remain, baseline %d:\n%s", runtime.NumGoroutine(), baseline, buf[:n])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseEndsEveryGoroutine(t *testing.T) {
	baseline := runtime.NumGoroutine()
	t.Run("traffic", func(t *testing.T) {
		tb, url := startJobs(t)
		p := newProducer(t, url)
		c := newConsumer(t, url, "", 2)
		p.mustSend(t, "", []byte("settled"))
		c.recv(t).settle(t)
		p.mustSend(t, "", []byte("out when the broker closes"))
		c.recv(t)
		p.pushReporting(t, "", []byte("held"), weida.Accepted, weida.Processed)
		tb.await(t, "/jobs", "one out, one held", func(q *queue) bool { return len(q.unsettled) == 1 && len(q.ready) == 1 })
		// Every runtime and the broker end with the subtest.
	})
	settleGoroutines(t, baseline)
}

func TestServeEndsWithItsContextAndOnlyOnce(t *testing.T) {
	rt := newRuntime(t)
	b, err := New(rt, queues("/jobs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- b.Serve(ctx) }()
	if _, err := b.Stats(ctxFor(t), "/jobs"); err != nil { // the loop answers: Serve runs
		t.Fatal(err)
	}
	if err := b.Serve(ctxFor(t)); err == nil {
		t.Fatal("a second Serve succeeded")
	}
	cancel()
	if err := <-served; !isKind(err, weida.KindCanceled) {
		t.Fatalf("Serve returned %v, want Canceled", err)
	}
	if _, err := b.Stats(ctxFor(t), "/jobs"); err == nil {
		t.Fatal("Stats answered after the broker closed")
	}
	if _, err := rt.Listener().Acceptor("/jobs"); err != nil {
		t.Fatalf("the closed broker still holds its path: %v", err)
	}
	if _, err := b.Stats(ctxFor(t), "/none"); !isKind(err, weida.KindUnknownEndpoint) {
		t.Fatalf("Stats of no queue: %v, want UnknownEndpoint", err)
	}
}

func isKind(err error, k weida.ErrorKind) bool { return weida.KindOf(err) == k }
