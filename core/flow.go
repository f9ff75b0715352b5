package weida

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// FlowMeta is what a datagram flow tells its acceptor once, in the FLOW
// header (PROTOCOL.md §8.7); each field is sent only when set.
type FlowMeta struct {
	ContentType string
	Traceparent string // W3C traceparent
	Tracestate  string // W3C tracestate, forwarded unmodified
	Topic       string // set by a radio's datagram flows
}

func (m FlowMeta) header(endpoint string) (wire.Flow, error) {
	for _, f := range []struct {
		name, value string
		limit       int
	}{
		{"topic", m.Topic, wire.CapTopic},
		{"content type", m.ContentType, wire.CapContentType},
		{"traceparent", m.Traceparent, wire.CapTraceparent},
		{"tracestate", m.Tracestate, wire.CapTracestate},
	} {
		if len(f.value) > f.limit {
			return wire.Flow{}, errs.New(errs.KindProtocol, "the flow's %s is %d bytes; the wire allows at most %d", f.name, len(f.value), f.limit)
		}
	}
	h := wire.Flow{Endpoint: endpoint}
	setText := func(o *wire.Opt[string], v string) {
		if v != "" {
			*o = wire.Some(v)
		}
	}
	setText(&h.ContentType, m.ContentType)
	setText(&h.Traceparent, m.Traceparent)
	setText(&h.Tracestate, m.Tracestate)
	setText(&h.Topic, m.Topic)
	return h, nil
}

// FlowStats counts one flow's datagrams. Sent and NotLive are kept by the
// sending side, Received by the receiving side, Dropped by both: datagrams
// the sender's queue discarded oldest-first, or the receiver's ring did.
type FlowStats struct {
	Sent     uint64 // accepted by Send (not a delivery: datagrams are never acknowledged)
	Received uint64 // queued for the application
	Dropped  uint64 // discarded under pressure
	NotLive  uint64 // sends while no connection was live, dropped (never queued)
}

// LocalMaxDatagram is LOCAL_MAX_DATAGRAM (PROTOCOL.md §12): the largest
// payload a flow over weida+inproc or weida+unix carries, where the FLOW
// stream carries its datagrams as length-prefixed records.
const LocalMaxDatagram = transport.LocalMaxDatagram

// TooLargeMax returns the largest payload a TooLarge error allowed, and
// false for any other error.
func TooLargeMax(err error) (int, bool) {
	var d *transport.DatagramTooLarge
	if errors.As(err, &d) {
		return d.Max, true
	}
	return 0, false
}

// Flow is an outgoing datagram flow opened by a Peer (SEMANTICS.md §2.8):
// Send is synchronous, never waits and is never sent late on purpose. The
// flow survives a redial of the Peer: while no connection is live, sends
// are dropped and counted NotLive, and the flow is registered again on the
// next live connection.
type Flow struct {
	d      *dialer
	meta   FlowMeta
	ctx    context.Context // ends at Close or when the Peer closes
	cancel context.CancelFunc

	mu      sync.Mutex
	cur     *transport.OutFlow // nil while re-registering
	earlier FlowStats          // counts of the flows of earlier connections

	notLive atomic.Uint64
	done    chan struct{} // closed when the flow ended for good
	err     error         // why; set before done closes
}

// OpenFlow registers a datagram flow toward the next live connection's
// path and returns without waiting for the acceptor. It fails with
// DatagramsUnavailable unless both runtimes enable Config.Datagrams.
func (p *Peer) OpenFlow(ctx context.Context, meta FlowMeta) (*Flow, error) {
	if _, err := meta.header(""); err != nil { // refused before any wait
		return nil, err
	}
	c, err := p.d.live(ctx)
	if err != nil {
		return nil, err
	}
	h, _ := meta.header(c.Path())
	of, err := c.OpenFlow(ctx, h)
	if err != nil {
		return nil, err
	}
	f := &Flow{d: p.d, meta: meta, cur: of, done: make(chan struct{})}
	f.ctx, f.cancel = context.WithCancel(p.d.ctx)
	go f.run(of)
	return f, nil
}

// Send sends payload as one datagram. It fails with TooLarge (see
// TooLargeMax) when the payload does not fit the connection's datagram
// size, and after the flow ended with why: Rejected, Canceled, or
// UnknownEndpoint / Unsupported / LimitExceeded for a refusal.
func (f *Flow) Send(payload []byte) error {
	select {
	case <-f.done:
		return f.err
	default:
	}
	f.mu.Lock()
	cur := f.cur
	f.mu.Unlock()
	if cur == nil {
		f.notLive.Add(1)
		return nil
	}
	err := cur.Send(payload)
	if err != nil && errs.KindOf(err) != errs.KindTooLarge && cur.ConnectionEnded() {
		f.notLive.Add(1) // the connection just went: run re-registers the flow
		return nil
	}
	return err
}

// MaxPayload is the largest payload Send accepts now; 0 while no
// connection is live.
func (f *Flow) MaxPayload() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == nil {
		return 0
	}
	return f.cur.MaxPayload()
}

// Stats counts the flow's datagrams over all its connections.
func (f *Flow) Stats() FlowStats {
	f.mu.Lock()
	s := f.earlier
	if f.cur != nil {
		s.Sent += f.cur.Sent()
		s.Dropped += f.cur.Dropped()
	}
	f.mu.Unlock()
	s.NotLive = f.notLive.Load()
	return s
}

// Done is closed when the flow ended for good (refused, released by the
// acceptor, closed, or the Peer gave up on every connection); Err says why.
func (f *Flow) Done() <-chan struct{} { return f.done }

// Err is nil while the flow lives, else why it ended.
func (f *Flow) Err() error {
	select {
	case <-f.done:
		return f.err
	default:
		return nil
	}
}

// Close ends the flow in order (FIN on its FLOW stream) and waits for its
// goroutine.
func (f *Flow) Close() error {
	f.cancel()
	<-f.done
	return nil
}

// run follows the flow's connections: when one is lost the flow is
// registered again on the next live one; any other end is final.
func (f *Flow) run(cur *transport.OutFlow) {
	for {
		select {
		case <-cur.Done():
		case <-f.ctx.Done():
			cur.Close()
			f.finish(errs.New(errs.KindCanceled, "the flow was closed"))
			return
		}
		f.retire(cur)
		if !cur.ConnectionEnded() {
			f.finish(cur.Err()) // refused or released by the acceptor
			return
		}
		next, err := f.reopen()
		if err != nil {
			f.finish(err)
			return
		}
		cur = next
	}
}

// reopen waits for a live connection and registers the flow on it.
func (f *Flow) reopen() (*transport.OutFlow, error) {
	for {
		c, err := f.d.live(f.ctx)
		if err != nil {
			return nil, err
		}
		h, _ := f.meta.header(c.Path()) // checked when the flow was opened
		of, err := c.OpenFlow(f.ctx, h)
		if err == nil {
			f.mu.Lock()
			f.cur = of
			f.mu.Unlock()
			return of, nil
		}
		if k := errs.KindOf(err); k == errs.KindDatagramsUnavailable || k == errs.KindLimitExceeded {
			return nil, err // this peer refuses the flow for good
		}
		// Any other failure is the connection ending under us (or Close):
		// wait until the dialer can know it too, then take the next one.
		select {
		case <-c.Done():
		case <-f.ctx.Done():
			return nil, err
		}
	}
}

// retire folds cur's counts into the earlier ones and leaves no current flow.
func (f *Flow) retire(cur *transport.OutFlow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.earlier.Sent += cur.Sent()
	f.earlier.Dropped += cur.Dropped()
	f.cur = nil
}

func (f *Flow) finish(err error) {
	f.err = err
	close(f.done)
}

// IncomingFlow is a datagram flow an Acceptor took. Its datagrams wait in
// a drop-oldest ring of 16 KiB (flow_queue_bytes): a slow reader loses the
// oldest and stalls nobody. Refuse or Close it when done.
type IncomingFlow struct {
	in   *transport.InFlow
	peer Fingerprint
	has  bool
}

func (*IncomingFlow) incoming() {}

func newIncomingFlow(in *transport.InFlow) *IncomingFlow {
	f := &IncomingFlow{in: in}
	f.peer, f.has = in.Conn().Peer()
	return f
}

// Recv returns the next datagram. Each is at most the connection's
// datagram size (one QUIC packet), already held in the bounded ring, so
// Recv takes no byte ceiling. After the sender closed the flow and the ring
// is empty it returns io.EOF; a reset flow is Canceled.
func (f *IncomingFlow) Recv(ctx context.Context) ([]byte, error) { return f.in.Recv(ctx) }

// Endpoint is the path the flow was addressed to.
func (f *IncomingFlow) Endpoint() string { return f.in.Header.Endpoint }

// Topic is the topic the flow carries (a radio's datagram flows set it).
func (f *IncomingFlow) Topic() (string, bool) { return f.in.Header.Topic.V, f.in.Header.Topic.Ok }

// ContentType is the sender's media-type label.
func (f *IncomingFlow) ContentType() (string, bool) {
	return f.in.Header.ContentType.V, f.in.Header.ContentType.Ok
}

// Traceparent is the sender's W3C trace context.
func (f *IncomingFlow) Traceparent() (string, bool) {
	return f.in.Header.Traceparent.V, f.in.Header.Traceparent.Ok
}

// Peer is the key the sender proved; false for an anonymous one.
func (f *IncomingFlow) Peer() (Fingerprint, bool) { return f.peer, f.has }

// Stats counts the datagrams queued for this reader and dropped from its ring.
func (f *IncomingFlow) Stats() FlowStats {
	return FlowStats{Received: f.in.Received(), Dropped: f.in.Dropped()}
}

// Refuse declines the flow: the sender's Send fails with Rejected.
func (f *IncomingFlow) Refuse() { f.in.Refuse(wire.CodeRejected) }

// Close releases the flow: the sender's Send fails with Canceled.
func (f *IncomingFlow) Close() error {
	f.in.Release()
	return nil
}

// flowRoute is a registration that takes inbound datagram flows. enqueue
// blocks while its queue is full; false means it went away.
type flowRoute interface {
	enqueueFlow(f *transport.InFlow) bool
}

// dispatchFlow hands an inbound flow to r or refuses it (PROTOCOL.md §8.7
// rule 3).
func dispatchFlow(r route, f *transport.InFlow) {
	fr, takesFlows := r.(flowRoute)
	switch {
	case r == nil:
		f.Refuse(wire.CodeUnknownEndpoint)
	case !takesFlows:
		f.Refuse(wire.CodeUnsupported)
	case !fr.enqueueFlow(f):
		f.Refuse(wire.CodeUnknownEndpoint)
	}
}

// Flow implements transport.FlowHandler for accepting connections.
func (rt router) Flow(_ *transport.Conn, f *transport.InFlow) {
	dispatchFlow(rt.l.lookup(f.Header.Endpoint), f)
}

// Flow implements transport.FlowHandler for dialled connections: the
// endpoint that claimed the connection takes the flows (a Dish's datagram
// segments).
func (cr *connRouter) Flow(c *transport.Conn, f *transport.InFlow) {
	dispatchFlow(cr.find(c, f.Header.Endpoint), f)
}

var (
	_ transport.FlowHandler = router{}
	_ transport.FlowHandler = (*connRouter)(nil)
)
