package weida

import (
	"sync"
	"testing"

	"github.com/weida-go/weida/core/wire"
)

// A stream segment that reaches a dish as it closes is refused, not left in
// its queue: close empties the queue once, after its readers stopped, and an
// enqueue that passed the closed check before it could land after that.
func TestASegmentArrivingAsItsDishClosesIsNotLeftInTheQueue(t *testing.T) {
	items, _ := realInboundFrom(t, 1)
	in := items[0].data
	in.Header.Topic = wire.Some("t")
	for trial := range 5000 {
		in.Header.Segment = wire.Some(uint64(trial + 1)) // always fresh
		r := newDishRoute(4)
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { <-start; r.enqueue(inbound{data: in}) })
		wg.Go(func() { <-start; r.close() })
		close(start)
		wg.Wait()
		if n := len(r.items); n > 0 {
			t.Fatalf("trial %d: %d segment(s) left in a closed dish's queue, neither refused nor read", trial, n)
		}
	}
}
