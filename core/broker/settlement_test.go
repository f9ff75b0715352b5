package broker

import (
	"testing"

	weida "github.com/weida-go/weida/core"
)

// BROKER.md §17, settlement, and §9 redelivery.

func TestAReportedDeliveryLeavesAndFreesItsBytes(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	newProducer(t, url).mustSend(t, "", []byte("work"))
	got := c.recv(t)
	if s := tb.stats(t, "/jobs"); s.Unsettled != 1 || s.Bytes != PerMessageOverhead+4 {
		t.Fatalf("stats %+v while out, want one unsettled delivery keeping its charge", s)
	}
	got.settle(t)
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Ready != 0 || s.Bytes != 0 {
		t.Fatalf("stats %+v after settlement, want nothing held or charged", s)
	}
}

func TestAPartialProcessedReportDoesNotSettle(t *testing.T) {
	_, url := startJobs(t)
	c := newConsumer(t, url, "", 2)
	newProducer(t, url).mustSend(t, "", []byte("0123456789"))
	got := c.recv(t)
	_ = got.report.Report(weida.Processed, 4) // below the body's length (O-3)
	got.reject(t)
	again := c.recv(t)
	if string(again.body) != "0123456789" || again.attempt != 2 {
		t.Fatalf("redelivered %q attempt %d, want the same message at attempt 2", again.body, again.attempt)
	}
}

func TestADeadConsumersDeliveryComesBackWithItsAttemptCount(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	p.mustSend(t, "", []byte("poison?"))

	// Two consumers take it in turn and go away without a report: two
	// requeues, so the third delivery says 3.
	for want := uint64(1); want <= 2; want++ {
		c := newConsumer(t, url, "", 1)
		got := c.recv(t)
		if got.attempt != want {
			t.Fatalf("delivery %d carried attempt %d", want, got.attempt)
		}
		if _, labelled := got.meta.DeliveryAttempt(); labelled != (want >= 2) {
			t.Fatalf("attempt %d: key 12 present = %v, want it only from 2 on", want, labelled)
		}
		_ = c.Close()
		tb.awaitRequeued(t, "/jobs")
	}
	c := newConsumer(t, url, "", 1)
	got := c.recv(t)
	if got.attempt != 3 || string(got.body) != "poison?" {
		t.Fatalf("third delivery %q attempt %d, want attempt 3", got.body, got.attempt)
	}
	// The count moves once the broker learns its write finished, which can
	// trail the consumer's read by a moment.
	tb.await(t, "/jobs", "the third attempt counted", func(q *queue) bool { s := q.stats(); return s.MaxAttempts == 3 && s.Delivered == 3 })
	got.settle(t)
	tb.await(t, "/jobs", "the settlement", func(q *queue) bool { return len(q.unsettled) == 0 && len(q.ready) == 0 })
}

func TestMaxUnsettledStopsDeliveryUntilOneSettles(t *testing.T) {
	cfg := queues("/jobs")
	cfg.MaxUnsettled = 2
	tb := startBroker(t, cfg)
	url := tb.binding.URL("/jobs")
	c := newConsumer(t, url, "", 10) // credit left throughout
	p := newProducer(t, url)
	for _, b := range []string{"a", "b", "c"} {
		p.mustSend(t, "", []byte(b))
	}
	first, second := c.recv(t), c.recv(t)
	c.nothingWithin(t, quiet)
	if s := tb.stats(t, "/jobs"); s.Unsettled != 2 || s.Ready != 1 || s.Bytes != 3*(PerMessageOverhead+1) {
		t.Fatalf("stats %+v, want 2 out, 1 held, all three charged", s)
	}
	first.settle(t)
	if third := c.recv(t); string(third.body) != "c" {
		t.Fatalf("after one settled, received %q, want c", third.body)
	}
	second.settle(t)
}

func TestNeverDeliverAdmitsAndConfirms(t *testing.T) {
	cfg := queues("/jobs")
	cfg.MaxUnsettled = NeverDeliver
	tb := startBroker(t, cfg)
	url := tb.binding.URL("/jobs")
	c := newConsumer(t, url, "", 10)
	tb.awaitConsumers(t, "/jobs", 1)
	newProducer(t, url).mustSend(t, "", []byte("kept"))
	c.nothingWithin(t, quiet)
}

func TestUnsubscribeReturnsWhatTheSubscriptionHeld(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	newProducer(t, url).mustSend(t, "", []byte("m"))
	c.recv(t) // held, never reported
	if err := c.Unsubscribe(ctxFor(t), ""); err != nil {
		t.Fatal(err)
	}
	tb.awaitRequeued(t, "/jobs")
	other := newConsumer(t, url, "", 1)
	if got := other.recv(t); got.attempt != 2 {
		t.Fatalf("redelivery after unsubscribe carried attempt %d, want 2", got.attempt)
	}
}
