package broker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// Issue 18 finding 1: every delivery orders its report under an id of the
// consumer's connection, and the connection awaits at most
// cursor.MaxAwaiting of them. Past it the oldest was let go, which the
// broker took for a consumer giving the delivery back: a repeat nobody
// asked for, and the consumer's later Processed refused.

func TestManySubscriptionsOnOneConnectionStopAtItsReportBound(t *testing.T) {
	const filters, perFilter = 20, DefaultMaxUnsettled // 5120: every subscription's own bound allows it
	tb, url := startJobs(t)
	h := newHolder(t, url, filters, 1<<20)
	tb.awaitConsumers(t, "/jobs", filters)
	sendMany(t, url, filters*perFilter, func(i int) string { return fmt.Sprintf("t.%d", i%filters) })
	h.withholdThenSettle(t, tb, filters*perFilter, MaxConnectionUnsettled)
}

func TestMaxUnsettledAtItsCeilingNeverRepeatsADelivery(t *testing.T) {
	const messages = 4200 // above the connection's report table (4096)
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs"}}, MaxUnsettled: MaxConnectionUnsettled})
	url := tb.binding.URL("/jobs")
	h := newHolder(t, url, 1, 1<<20)
	tb.awaitConsumers(t, "/jobs", 1)
	sendMany(t, url, messages, func(int) string { return "t.0" })
	h.withholdThenSettle(t, tb, messages, MaxConnectionUnsettled)
}

func TestMaxUnsettledAboveItsCeilingIsRefused(t *testing.T) {
	for _, n := range []int{MaxConnectionUnsettled + 1, 10000} {
		if _, err := (Config{MaxUnsettled: n}).validated(); err == nil || kindOf(err) != weida.KindRuntime {
			t.Errorf("MaxUnsettled %d: %v, want a Runtime error", n, err)
		}
	}
	if _, err := (Config{MaxUnsettled: MaxConnectionUnsettled}).validated(); err != nil {
		t.Errorf("MaxUnsettled at its ceiling: %v", err)
	}
}

// holder is one consumer connection with subscriptions to "t.0".. that
// receives every delivery as it comes and hands it to the test, which
// decides when to report.
type holder struct {
	c    *consumer
	in   chan received
	seen map[string]int
}

func newHolder(t *testing.T, url string, filters int, credit uint64) *holder {
	t.Helper()
	h := &holder{c: newConsumer(t, url, "t.0", 0), in: make(chan received, 1<<14), seen: map[string]int{}}
	for i := 1; i < filters; i++ {
		if err := h.c.Subscribe(ctxFor(t), fmt.Sprintf("t.%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.c.Grant(ctxFor(t), credit); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			body, meta, r, err := h.c.RecvReporting(ctx, 1<<20)
			if err != nil {
				return
			}
			attempt, _ := meta.DeliveryAttempt()
			select {
			case h.in <- received{body: body, meta: meta, report: r, attempt: attempt}:
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// take receives the next delivery and fails on a repeat.
func (h *holder) take(t *testing.T) received {
	t.Helper()
	select {
	case r := <-h.in:
		if h.seen[string(r.body)]++; h.seen[string(r.body)] > 1 || r.attempt > 1 {
			t.Fatalf("%s delivered again (attempt %d): a requeue nobody asked for", r.body, r.attempt)
		}
		return r
	case <-ctxFor(t).Done():
		t.Fatalf("no delivery after %d distinct ones", len(h.seen))
		panic("unreachable")
	}
}

// withholdThenSettle takes deliveries without reporting until the queue
// stops at bound, checks nothing more comes, then settles them in random
// order and every later one as it comes, until all messages settled once.
func (h *holder) withholdThenSettle(t *testing.T, tb *testBroker, messages, bound int) {
	t.Helper()
	held := make([]received, 0, bound)
	for range bound {
		held = append(held, h.take(t))
	}
	tb.await(t, "/jobs", "the deliveries written", func(q *queue) bool { return q.delivered >= uint64(bound) })
	h.nothingWithin(t)
	if s := tb.stats(t, "/jobs"); s.Delivered != uint64(bound) || s.Unsettled != bound || s.Ready != messages-bound {
		t.Fatalf("stats %+v with the reports withheld, want delivery stopped at %d", s, bound)
	}
	rand.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
	for _, r := range held {
		r.settle(t)
	}
	for len(h.seen) < messages {
		h.take(t).settle(t)
	}
	tb.await(t, "/jobs", "every message settled", func(q *queue) bool { return len(q.ready) == 0 && len(q.unsettled) == 0 })
	if s := tb.stats(t, "/jobs"); s.Delivered != uint64(messages) || s.MaxAttempts != 0 || s.Bytes != 0 {
		t.Fatalf("stats %+v, want %d deliveries, no repeat, nothing charged", s, messages)
	}
}

// nothingWithin asserts no delivery comes for a short while (the state
// that makes it so was awaited first).
func (h *holder) nothingWithin(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), quiet)
	defer cancel()
	select {
	case r := <-h.in:
		t.Fatalf("received %s past the bound", r.body)
	case <-ctx.Done():
	}
}

// sendMany sends n distinct messages "m<i>" by exchange from a few
// producers at once, topic(i) each.
func sendMany(t *testing.T, url string, n int, topic func(int) string) {
	t.Helper()
	sendAllOf(t, url, n, topic)
	if t.Failed() {
		t.FailNow()
	}
}

// sendAllOf is sendMany for a goroutine other than the test's: a failure
// is reported, and the test goes on.
func sendAllOf(t *testing.T, url string, n int, topic func(int) string) {
	t.Helper()
	const producers = 8
	var wg sync.WaitGroup
	for p := range producers {
		pr := newProducer(t, url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < n; i += producers {
				meta := weida.TransferMeta{Topic: topic(i)}
				if _, _, err := pr.req.RequestWith(ctxFor(t), meta, []byte(fmt.Sprintf("m%06d", i)), 16); err != nil {
					t.Errorf("send %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
