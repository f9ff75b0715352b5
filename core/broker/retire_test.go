package broker

import (
	"errors"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// BROKER.md §12.

func TestRetireAnEmptyQueueReturnsAtOnce(t *testing.T) {
	tb := startBroker(t, queues("/jobs"))
	start := time.Now()
	if r := tb.Retire(time.Now().Add(10 * time.Second)); r != (Retired{}) {
		t.Fatalf("retired %+v, want zeros", r)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("an empty retire waited %v", waited)
	}
}

func TestRetireWithASilentConsumerRequeuesAtTheDeadline(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	newProducer(t, url).mustSend(t, "", []byte("m"))
	c.recv(t) // never reported
	deadline := time.Now().Add(200 * time.Millisecond)
	r := tb.Retire(deadline)
	if time.Now().Before(deadline) {
		t.Fatal("retire returned before the deadline with a delivery out")
	}
	if r != (Retired{Requeued: 1}) {
		t.Fatalf("retired %+v, want one requeued", r)
	}
	tb.awaitRequeued(t, "/jobs")
}

func TestRetireWaitsForASettlement(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	newProducer(t, url).mustSend(t, "", []byte("m"))
	got := c.recv(t)
	done := tb.retireBegun(t, "/jobs", 15*time.Second)
	got.settle(t)
	if r := <-done; r != (Retired{Settled: 1}) {
		t.Fatalf("retired %+v, want one settled", r)
	}
}

func TestASendAfterRetireBeganIsRejected(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	c := newConsumer(t, url, "", 1)
	p.mustSend(t, "", []byte("first"))
	got := c.recv(t) // keeps retire waiting
	done := tb.retireBegun(t, "/jobs", 15*time.Second)
	if _, err := p.send(t, "", []byte("late")); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("send during retire: %v, want Rejected", err)
	}
	got.settle(t)
	<-done
	// Retired stays closed to admission and delivery.
	if _, err := p.send(t, "", []byte("later")); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("send after retire: %v, want Rejected", err)
	}
}

func TestRetireCountsMessagesNobodyCanTake(t *testing.T) {
	tb, url := startJobs(t)
	p := newProducer(t, url)
	p.mustSend(t, "", []byte("a"))
	p.mustSend(t, "", []byte("b"))
	if r := tb.Retire(time.Now().Add(10 * time.Second)); r != (Retired{Unsettled: 2}) {
		t.Fatalf("retired %+v, want two held and undelivered, at once", r)
	}
}
