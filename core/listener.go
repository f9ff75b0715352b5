package weida

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Listener is a namespace of endpoint paths. Paths are opaque and matched
// exactly; each path has one registration. Every binding of the listener
// serves the same paths.
type Listener struct {
	rt *Runtime
	mu sync.Mutex // serializes registrations
	// routes maps paths to registrations. A registration copies the map
	// and swaps it in, so the per-stream lookup is one atomic load, with no
	// lock shared by every stream of every connection.
	routes atomic.Pointer[map[string]route]
	subs   subscriptions  // SUBSCRIBE state of accepted connections (subscriptions.go)
	joins  joinTable      // the terms dishes stated with their joins (radiojoin.go)
	fresh  freshTable     // segment numbers seen per connection and topic (segmentfresh.go)
	failed negotiationLog // accepted connections that failed negotiation (negotiation.go)
}

func newListener(rt *Runtime) *Listener {
	l := &Listener{rt: rt}
	l.routes.Store(&map[string]route{})
	return l
}

// route is what a registration does with inbound streams at its path.
type route interface {
	acceptsData() bool
	acceptsExchange() bool
	// enqueue hands over an inbound item. A full queue holds it unread, so
	// the peer's stream budget, which an unread stream pins, pushes back
	// (queueRoute parks it; other routes may block). False means the route
	// or the connection went away and the item was not taken.
	enqueue(it inbound) bool
	close()
}

// inbound is one accepted stream: a one-way transfer or an exchange.
type inbound struct {
	data  *transport.InStream
	ex    *transport.Exchange
	order seqMark // what sequencing found for a one-way transfer (seqreceive.go)
}

func (in inbound) conn() *transport.Conn {
	if in.ex != nil {
		return in.ex.Conn()
	}
	return in.data.Conn()
}

// register claims path, a user endpoint path, for r.
func (l *Listener) register(path string, r route) error {
	if err := identity.ValidatePath(path); err != nil {
		return err
	}
	return l.claim(path, r)
}

// claim registers r at path, which the caller validated (a reserved path
// such as LeaderPath is not a valid user path).
func (l *Listener) claim(path string, r route) error {
	if err := l.rt.usable(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	routes := *l.routes.Load()
	if _, taken := routes[path]; taken {
		return errs.New(errs.KindAlreadyRegistered, "the path %q is already registered", path)
	}
	next := maps.Clone(routes)
	next[path] = r
	l.routes.Store(&next)
	return nil
}

func (l *Listener) unregister(path string, r route) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if routes := *l.routes.Load(); routes[path] == r {
		next := maps.Clone(routes)
		delete(next, path)
		l.routes.Store(&next)
	}
}

func (l *Listener) lookup(path string) route { return (*l.routes.Load())[path] }

// routeSnapshot is every registration at one moment; never written.
func (l *Listener) routeSnapshot() map[string]route { return *l.routes.Load() }

func (l *Listener) closeRoutes() {
	l.mu.Lock()
	routes := l.routes.Swap(&map[string]route{})
	l.mu.Unlock()
	for _, r := range *routes {
		r.close()
	}
}

// router dispatches an accepting connection's inbound streams by (kind,
// path), with the refusals of PROTOCOL.md §11.4.
type router struct{ l *Listener }

// Data implements transport.Handler. A stale segment is refused before
// any endpoint sees it (segmentfresh.go).
func (rt router) Data(_ *transport.Conn, in *transport.InStream) {
	if rt.l.fresh.admitData(in) {
		dispatchData(rt.l.rt, rt.l.lookup(in.Header.Endpoint.V), in)
	}
}

// Exchange implements transport.Handler.
func (rt router) Exchange(_ *transport.Conn, ex *transport.Exchange) {
	dispatchExchange(rt.l.rt, rt.l.lookup(ex.In.Header.Endpoint.V), ex)
}

// Control implements transport.Handler: SUBSCRIBE, UNSUBSCRIBE and CREDIT
// are recorded per connection whether or not a publisher exists yet.
func (rt router) Control(c *transport.Conn, kind wire.Kind, sub *wire.Subscribe, credit *wire.Credit) {
	rt.l.control(c, kind, sub, credit)
}

// JudgeSubscribe implements transport.SubscribeJudge: a queue port with a
// subscribe gate may refuse a SUBSCRIBE for its path (REJECTED) before it
// is recorded anywhere.
func (rt router) JudgeSubscribe(c *transport.Conn, sub *wire.Subscribe) wire.AppCode {
	if r, ok := rt.l.lookup(sub.Endpoint).(portRoute); ok {
		return r.p.judgeSubscribe(c, sub.Filter)
	}
	return 0
}

// Cursor implements transport.Handler: the report the stream names on its
// connection reads it; an unknown report_id is stopped CANCELED (cursors.go).
func (rt router) Cursor(c *transport.Conn, head wire.CursorHead, s *transport.CursorStream) {
	serveCursor(rt.l.rt, c, head, s)
}

// Closed implements transport.Handler.
func (rt router) Closed(c *transport.Conn, err error) {
	rt.l.connClosed(c)
	rt.l.failed.note(c, err)
	rt.l.rt.logConnClosed(c, err)
	seqForget(c)
}

// dispatchData queues a one-way transfer at r, through the sequencing and
// deduplication its connection agreed on (owner.deliverData), or refuses it.
func dispatchData(owner *Runtime, r route, in *transport.InStream) {
	switch {
	case r == nil:
		owner.logRefused(in.Conn(), in.Header.Endpoint.V, wire.CodeUnknownEndpoint)
		in.Refuse(wire.CodeUnknownEndpoint)
	case !r.acceptsData():
		owner.logRefused(in.Conn(), in.Header.Endpoint.V, wire.CodeUnsupported)
		in.Refuse(wire.CodeUnsupported)
	default:
		owner.deliverData(r, in)
	}
}

// dispatchExchange queues an exchange at r or refuses it on both halves.
func dispatchExchange(owner *Runtime, r route, ex *transport.Exchange) {
	switch {
	case r == nil:
		owner.logRefused(ex.Conn(), ex.In.Header.Endpoint.V, wire.CodeUnknownEndpoint)
		ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
	case !r.acceptsExchange():
		owner.logRefused(ex.Conn(), ex.In.Header.Endpoint.V, wire.CodeUnsupported)
		ex.Refuse(wire.ErrorUnsupported, wire.CodeUnsupported)
	case !r.enqueue(inbound{ex: ex}):
		ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
	}
}

// queueRoute is a bounded inbound queue at one path (P4 of SEMANTICS.md §1).
// An item that finds the queue full is parked behind it, in arrival order,
// instead of holding its connection's accept goroutine until there is
// room: a blocked goroutine cost the accept loop a fresh goroutine (and a
// stack to grow) per waiting stream. What waits is bounded as before: each
// parked item is an unread stream that pins one stream of its peer's
// budget (a one-way transfer holds its credit until read, an exchange until
// answered; a local stream its max_local_streams slot), so a puller that
// stops reading still stalls its pushers once their budget is spent.
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
	q.refillLocked() // room may have opened since the try above
	return true
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
	q.parkMu.Unlock()
	for _, it := range parked {
		refuseInbound(it)
	}
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

// takeAll empties the queue, returning what it held.
func (p *parkedQueue) takeAll() []inbound {
	all := p.items[p.head:]
	p.items, p.head = nil, 0
	return all
}
