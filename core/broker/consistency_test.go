package broker

import (
	"context"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// Issue 18 finding 5 (Stats read Unsettled 3 after the producer heard
// Processed for all three): the relay ran on the delivery's goroutine
// before the loop had the settlement. A loop held busy makes the order
// visible: the producer must not hear Processed until the loop ran.
func TestAProducerHearsProcessedOnlyOnceStatsShowTheSettlement(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	body := []byte("settle me")
	cursors := p.pushReporting(t, "", body, weida.Processed)
	c := newConsumer(t, url, "", 1)
	got := c.recv(t)

	q := tb.byPath["/jobs"]
	busy, release := make(chan struct{}), make(chan struct{})
	go func() { _ = q.call(context.Background(), func() { close(busy); <-release }) }()
	<-busy
	got.settle(t)
	quietCtx, cancel := context.WithTimeout(context.Background(), quiet)
	_, _, _ = cursors.Changed(quietCtx) // returns at a change, or at the bound
	cancel()
	if off, ok := cursors.Offset(weida.Processed); ok {
		close(release)
		t.Fatalf("the producer heard Processed at %d while the loop had not settled the delivery", off)
	}
	close(release)
	if off := awaitLevel(t, cursors, weida.Processed); off != uint64(len(body)) {
		t.Fatalf("Processed at %d, want %d", off, len(body))
	}
	if s := tb.stats(t, "/jobs"); s.Unsettled != 0 || s.Ready != 0 || s.Delivered != 1 {
		t.Fatalf("stats %+v after the producer heard Processed, want it settled", s)
	}
}

// A consumer claiming Processed beyond the body is ignored and counted;
// its connection goes on, and its deliveries with it.
func TestProcessedBeyondTheBodyIsIgnoredAndCounted(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	p.mustSend(t, "", []byte("four"))
	c := newConsumer(t, url, "", 2)
	got := c.recv(t)
	if err := got.report.Report(weida.Processed, 1000); err != nil {
		t.Fatal(err)
	}
	if err := got.report.Finish(); err != nil {
		t.Fatal(err)
	}
	// The report ended without a settling Processed: the message is back
	// and the same connection takes it again.
	again := c.recv(t)
	if string(again.body) != "four" || again.attempt != 2 {
		t.Fatalf("received %q at attempt %d, want the message again", again.body, again.attempt)
	}
	again.settle(t)
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.BadReports != 1 || s.Ready != 0 {
		t.Fatalf("stats %+v, want one bad report counted and nothing left", s)
	}
}
