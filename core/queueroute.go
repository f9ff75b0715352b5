package weida

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// queueRoute is a bounded inbound queue at one path (P4 of SEMANTICS.md §1).
// An item that finds the queue full is parked behind it, in arrival order,
// instead of holding its connection's accept goroutine until there is
// room: a blocked goroutine cost the accept loop a fresh goroutine (and a
// stack to grow) per waiting stream. What waits is bounded as before: each
// parked item is an unread stream that pins one stream of its peer's
// budget (a one-way transfer holds its credit until read, an exchange until
// answered; a local stream its max_local_streams slot), so a puller that
// stops reading still stalls its pushers once their budget is spent, and
// what a connection parked is refused when it ends (sweep).
type queueRoute struct {
	data, exchange bool
	items          chan inbound
	done           chan struct{}
	once           sync.Once

	parkMu sync.Mutex
	parked parkedQueue // behind a full items, oldest first
	// nParked mirrors len(parked) for the lock-free checks: an item takes
	// the channel directly only when nothing is parked ahead of it.
	nParked    atomic.Int64
	parkClosed bool // close took the parked items; nothing parks after it
	// sweeps are the connections that parked items here, each with the
	// stop of the sweep that drops their parked items when it ends: a
	// peer that reconnects gets a fresh stream budget, so what a dead
	// connection parked must not outlive it.
	sweeps map[*transport.Conn]func() bool
	// onSwept, when set (tests), runs after a sweep.
	onSwept func()
}

func newQueueRoute(depth int, data, exchange bool) *queueRoute {
	return &queueRoute{data: data, exchange: exchange,
		items: make(chan inbound, depth), done: make(chan struct{})}
}

func (q *queueRoute) acceptsData() bool     { return q.data }
func (q *queueRoute) acceptsExchange() bool { return q.exchange }

// closed reports whether close has begun.
func (q *queueRoute) closed() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

// enqueue takes it: into the queue when there is room and nothing is
// parked ahead of it, else parked behind. It never waits; false means the
// route was closed and it was not taken.
func (q *queueRoute) enqueue(it inbound) bool {
	if q.closed() {
		return false
	}
	if q.nParked.Load() == 0 {
		select {
		case q.items <- it:
			if q.closed() {
				// close may have emptied items before it landed there:
				// what is left is refused here, so nothing waits unread.
				q.refuseQueued()
			}
			return true
		default:
		}
	}
	q.parkMu.Lock()
	defer q.parkMu.Unlock()
	if q.parkClosed {
		return false
	}
	q.parked.push(it)
	q.nParked.Add(1)
	if c := it.conn(); q.sweeps[c] == nil {
		if q.sweeps == nil {
			q.sweeps = make(map[*transport.Conn]func() bool)
		}
		q.sweeps[c] = c.AfterEnd(func() { q.sweep(c) })
	}
	q.refillLocked() // room may have opened since the try above
	return true
}

// sweep refuses what c parked here once c ended, as a wait for room on a
// dead connection always ended.
func (q *queueRoute) sweep(c *transport.Conn) {
	q.parkMu.Lock()
	delete(q.sweeps, c)
	gone := q.parked.removeIf(func(it inbound) bool { return it.conn() == c })
	q.nParked.Add(-int64(len(gone)))
	hook := q.onSwept
	q.parkMu.Unlock()
	for _, it := range gone {
		refuseInbound(it)
	}
	if hook != nil {
		hook()
	}
}

// took is called by every receiver after it took an item from items: the
// room it made goes to the oldest parked item.
func (q *queueRoute) took() {
	if q.nParked.Load() == 0 {
		return
	}
	q.parkMu.Lock()
	q.refillLocked()
	q.parkMu.Unlock()
}

// refillLocked moves parked items into items while it has room. An item
// whose connection ended while it waited is refused instead, as a wait for
// room on a dead connection always ended. An item stays parked only while
// items is full, and the receiver that next takes one calls took.
func (q *queueRoute) refillLocked() {
	for q.parked.len() > 0 {
		it := q.parked.front()
		select {
		case <-it.conn().Done():
			refuseInbound(it)
		default:
			select {
			case q.items <- it:
			default:
				return
			}
		}
		q.parked.pop()
		q.nParked.Add(-1)
	}
}

// next waits for the next inbound item.
func (q *queueRoute) next(ctx context.Context) (inbound, error) {
	select { // an item already queued needs no three-way select
	case it := <-q.items:
		q.took()
		return it, nil
	default:
	}
	for {
		select {
		case it := <-q.items:
			q.took()
			return it, nil
		case <-q.done:
			return inbound{}, errs.New(errs.KindCanceled, "the endpoint was closed")
		case <-ctx.Done():
			return inbound{}, errs.Wrap(errs.KindCanceled, ctx.Err(), "accept abandoned")
		}
	}
}

// close wakes blocked callers and refuses what is still queued or parked.
func (q *queueRoute) close() {
	q.once.Do(func() { close(q.done) })
	q.parkMu.Lock()
	q.parkClosed = true
	parked := q.parked.takeAll()
	q.nParked.Store(0)
	for _, stop := range q.sweeps {
		stop()
	}
	q.sweeps = nil
	q.parkMu.Unlock()
	for _, it := range parked {
		refuseInbound(it)
	}
	q.refuseQueued()
}

// refuseQueued refuses what waits in items.
func (q *queueRoute) refuseQueued() {
	for {
		select {
		case it := <-q.items:
			refuseInbound(it)
		default:
			return
		}
	}
}

// refuseInbound answers an item no endpoint will take UNKNOWN_ENDPOINT.
func refuseInbound(it inbound) {
	if it.ex != nil {
		it.ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
	} else {
		it.data.Refuse(wire.CodeUnknownEndpoint)
	}
}

// parkedQueue is a FIFO of parked items whose array is reused once it
// empties, and compacted when its dead front is most of it.
type parkedQueue struct {
	items []inbound
	head  int
}

func (p *parkedQueue) len() int       { return len(p.items) - p.head }
func (p *parkedQueue) front() inbound { return p.items[p.head] }

func (p *parkedQueue) push(it inbound) {
	if p.head > 0 && len(p.items) == cap(p.items) && p.head >= len(p.items)/2 {
		n := copy(p.items, p.items[p.head:])
		clear(p.items[n:])
		p.items, p.head = p.items[:n], 0
	}
	p.items = append(p.items, it)
}

func (p *parkedQueue) pop() {
	p.items[p.head] = inbound{}
	p.head++
	if p.head == len(p.items) {
		p.items, p.head = p.items[:0], 0
	}
}

// removeIf takes out, in order, the items gone reports true for.
func (p *parkedQueue) removeIf(gone func(inbound) bool) []inbound {
	var out []inbound
	kept := p.items[:p.head]
	for _, it := range p.items[p.head:] {
		if gone(it) {
			out = append(out, it)
		} else {
			kept = append(kept, it)
		}
	}
	clear(p.items[len(kept):])
	p.items = kept
	if p.head == len(p.items) {
		p.items, p.head = p.items[:0], 0
	}
	return out
}

// takeAll empties the queue, returning what it held.
func (p *parkedQueue) takeAll() []inbound {
	all := p.items[p.head:]
	p.items, p.head = nil, 0
	return all
}
