package weida

import (
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
	raceArrivalAgainstClose(t, "segment(s)", func(trial int) (arrive, closeIt func(), left func() int) {
		in.Header.Segment = wire.Some(uint64(trial + 1)) // always fresh
		r := newDishRoute(4)
		return func() { r.enqueue(inbound{data: in}) }, r.close, func() int { return len(r.items) }
	})
}
