package broker

import (
	"context"
	"log/slog"
	"time"
)

// Retired is what a queue's retire did, in local counts — statements
// about this broker, never acknowledgements from any peer (O-7).
type Retired struct {
	// Settled counts deliveries settled while retire waited.
	Settled uint64
	// Unsettled counts messages still held at return that were not out
	// at the deadline: never delivered, or put back before it.
	Unsettled uint64
	// Requeued counts deliveries still unsettled at the deadline, taken
	// back and held again.
	Requeued uint64
}

// add sums two results (a broker's retire sums its queues').
func (r Retired) add(o Retired) Retired {
	return Retired{Settled: r.Settled + o.Settled, Unsettled: r.Unsettled + o.Unsettled, Requeued: r.Requeued + o.Requeued}
}

// retireState is a retire in progress; the loop owns it.
type retireState struct {
	settled uint64
	done    chan struct{} // closed once nothing is out or deliverable
	closed  bool
}

// retire is the queue's drain (BROKER.md §12): admission closes at once
// (exactly as a full queue refuses), delivery goes on under the credit
// already granted, and it waits until the deadline for what is out to
// settle — returning early once nothing is out and nothing more can be
// delivered. At the deadline what is still out is put back. Afterwards the
// queue neither admits nor delivers. It is not the transport's drain and
// certifies nothing about any peer.
//
// A replicated queue this node leads first hands its leadership to
// another member (BROKER.md §12 in a cluster), so producers and consumers
// move to it; what this node then holds is nothing, and the drain that
// follows ends at once.
func (q *queue) retire(deadline time.Time) Retired {
	if q.repl != nil && q.repl.g.IsLeader() {
		if err := q.repl.g.TransferLeadership(); err != nil {
			// Not a failure of the queue: the drain below runs on this node.
			q.log.emit(slog.LevelWarn, "weida broker: could not hand the leadership on before retiring", slog.String("error", err.Error()))
		}
	}
	q.refusing.Store(true)
	done := make(chan struct{})
	if err := q.call(context.Background(), func() {
		if q.retiring == nil {
			q.retiring = &retireState{done: done}
		} else {
			done = q.retiring.done // a second retire waits for the same end
		}
		q.checkRetired()
	}); err != nil {
		return Retired{}
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-q.stopped:
	}
	var r Retired
	_ = q.call(context.Background(), func() { r = q.endRetire() })
	return r
}

// checkRetired ends a retire's wait once nothing is out and nothing can be
// delivered (an empty queue ends it at once).
func (q *queue) checkRetired() {
	rs := q.retiring
	if rs == nil || rs.closed || len(q.unsettled) > 0 {
		return
	}
	if len(q.ready) > 0 && q.anyTaker() {
		if i, _ := q.peek(); i >= 0 {
			return // pump will deliver it: wait for its settlement
		}
	}
	rs.closed = true
	close(rs.done)
}

// peek is pick without moving the round-robin cursor.
func (q *queue) peek() (int, *subscription) {
	rr := q.roundRobin
	i, s := q.pick()
	q.roundRobin = rr
	return i, s
}

// endRetire puts back what is out, stops delivery for good and counts.
func (q *queue) endRetire() Retired {
	rs := q.retiring
	var r Retired
	if rs != nil {
		r.Settled = rs.settled
		if !rs.closed {
			rs.closed = true
			close(rs.done)
		}
	}
	r.Unsettled = uint64(len(q.ready) + len(q.deferred))
	for _, d := range q.unsettled {
		q.requeue(d)
		r.Requeued++
	}
	q.retired = true
	for _, m := range q.ready {
		m.producer.finish()
	}
	for m := range q.deferred {
		m.producer.finish()
	}
	return r
}
