package weida

import (
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
