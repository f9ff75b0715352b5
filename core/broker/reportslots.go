package broker

import (
	"sync"
	"sync/atomic"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/cursor"
)

// MaxConnectionUnsettled bounds the deliveries one consumer connection
// holds that may still await their report, across every queue of the
// broker and every subscription on the connection. Each delivery orders
// its report under an id of the consumer's connection, and that
// connection awaits at most cursor.MaxAwaiting reports: past it the oldest
// is let go as if its consumer had ended it, which would requeue a
// delivery nobody gave back and refuse its later Processed (a visibility
// timeout in disguise, BROKER.md §8.4). A connection at this bound is
// skipped by the scan as one without credit is, until a report frees a
// slot; the quarter of the table left over is for other report orders on
// the connection. It is also MaxUnsettled's ceiling.
const MaxConnectionUnsettled = cursor.MaxAwaiting * 3 / 4

// reportSlots counts, per consumer connection, the deliveries whose report
// id the connection may still be holding. It is the broker's, shared by
// its queues, because the connection's table is shared by them.
type reportSlots struct {
	limit  int64
	mu     sync.Mutex
	byConn map[weida.PortConn]*connSlots
}

// connSlots is one connection's count. out changes off the loops (a
// delivery's goroutine gives its slot back); subs and queues are guarded
// by reportSlots.mu.
type connSlots struct {
	from   *reportSlots
	conn   weida.PortConn
	out    atomic.Int64
	subs   int            // subscriptions holding this entry
	queues map[*queue]int // subscriptions per queue, to wake when room frees
}

func newReportSlots(limit int) *reportSlots {
	return &reportSlots{limit: int64(limit), byConn: make(map[weida.PortConn]*connSlots)}
}

// join is a subscription of q on c taking a reference to c's count.
func (r *reportSlots) join(q *queue, c weida.PortConn) *connSlots {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs := r.byConn[c]
	if cs == nil {
		cs = &connSlots{from: r, conn: c, queues: make(map[*queue]int)}
		r.byConn[c] = cs
	}
	cs.subs++
	cs.queues[q]++
	return cs
}

// leave drops a subscription's reference; the entry goes once nothing
// holds it.
func (cs *connSlots) leave(q *queue) {
	r := cs.from
	r.mu.Lock()
	defer r.mu.Unlock()
	cs.subs--
	if cs.queues[q]--; cs.queues[q] == 0 {
		delete(cs.queues, q)
	}
	r.forgetLocked(cs)
}

func (r *reportSlots) forgetLocked(cs *connSlots) {
	if cs.subs == 0 && cs.out.Load() == 0 && r.byConn[cs.conn] == cs {
		delete(r.byConn, cs.conn)
	}
}

// room reports whether the connection may take one more delivery.
func (cs *connSlots) room() bool { return cs.out.Load() < cs.from.limit }

// take claims a slot for a delivery; false when the connection is at its
// bound (another queue took the last one).
func (cs *connSlots) take() bool {
	for {
		n := cs.out.Load()
		if n >= cs.from.limit {
			return false
		}
		if cs.out.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// give returns a slot, once the connection no longer holds the delivery's
// report id (its stream arrived, or the id was released). A connection
// that was at its bound has room again: every queue with a subscription
// on it looks again.
func (cs *connSlots) give() {
	n := cs.out.Add(-1)
	r := cs.from
	if n != r.limit-1 && n != 0 {
		return
	}
	r.mu.Lock()
	var wake []*queue
	if n == r.limit-1 {
		for q := range cs.queues {
			wake = append(wake, q)
		}
	}
	r.forgetLocked(cs)
	r.mu.Unlock()
	for _, q := range wake {
		q.post(roomFreed{})
	}
}

// roomFreed: a consumer connection at its bound has room again.
type roomFreed struct{}

func (roomFreed) apply(q *queue) { q.pump() }
