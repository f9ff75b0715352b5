package weida

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Dish is the dialling side of RADIO/DISH (SEMANTICS.md §2.7). It
// connects to radios, joins topics with its terms (a latency budget and a
// layer cap), and receives segments and datagram segments from one bounded
// queue (endpoint_queue) over all of them. Nothing is retained for it: a
// late joiner gets the next segment, and a lost segment is a gap in the
// numbers it sees, which never go backwards on a topic (an older one is
// discarded on arrival and counted Stale). A full queue discards arrivals
// and counts them (Overflow); it never slows the radio's connection.
// Joins are its own state: sent on every connection, re-sent on every
// redial.
type Dish struct {
	d *dialer
	r *dishRoute

	mu     sync.Mutex
	closed bool
	joins  []dishJoin                   // in join order, distinct filters
	conns  map[*transport.Conn]struct{} // connections the joins were announced on
}

// JoinOptions are a dish's terms for one filter. Across several matching
// filters the smallest MaxAge and the largest layer cap apply.
type JoinOptions struct {
	// MaxAge is the dish's latency budget: a copy older than this
	// (measured on the radio's clock from the segment's open) is reset.
	// 0 means none.
	MaxAge time.Duration
	// MaxLayer is the highest layer wanted (0..15), applied only when
	// CapLayers is set; layers above it are never sent.
	MaxLayer  int
	CapLayers bool
}

type dishJoin struct {
	filter string
	opts   JoinOptions
}

// Dish creates a dish that verifies radios under trust.
func (rt *Runtime) Dish(trust Trust, opts ...EndpointOption) *Dish {
	d := &Dish{d: newDialer(rt, trust, opts), r: newDishRoute(rt.cfg.EndpointQueue),
		conns: make(map[*transport.Conn]struct{})}
	d.d.inbound = d.r
	d.d.onLive = d.announce
	context.AfterFunc(d.d.ctx, d.r.close)
	return d
}

// Connect dials a radio's URL and sends it every join held so far.
func (d *Dish) Connect(ctx context.Context, url string) error { return d.d.connect(ctx, url) }

// Disconnect removes url's slot; it reports whether there was one.
func (d *Dish) Disconnect(url string) bool { return d.d.disconnect(url) }

// Join joins filter (PROTOCOL.md §8.4.1) with opts on every live
// connection, and on later ones when they connect; joining a filter again
// updates its terms. A layer cap above 15 is LimitExceeded, a filter the
// grammar refuses is Protocol; nothing is sent then. Join returns once the
// frames are handed to the transport: the radio applies them shortly
// after. A radio's admission policy may refuse the join silently.
func (d *Dish) Join(ctx context.Context, filter string, opts JoinOptions) error {
	if err := subCheckFilter(filter); err != nil {
		return err
	}
	if opts.CapLayers && (opts.MaxLayer < 0 || opts.MaxLayer > wire.MaxLayer) {
		return errs.New(errs.KindLimitExceeded, "join: max layer %d is outside 0..%d", opts.MaxLayer, wire.MaxLayer)
	}
	if opts.MaxAge < 0 {
		return errs.New(errs.KindRuntime, "join: MaxAge must not be negative")
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errEndpointClosed()
	}
	j := dishJoin{filter: filter, opts: opts}
	if i := slices.IndexFunc(d.joins, func(h dishJoin) bool { return h.filter == filter }); i >= 0 {
		d.joins[i] = j
	} else if len(d.joins) >= maxSubscriptions {
		d.mu.Unlock()
		return errs.New(errs.KindLimitExceeded, "join: %d filters is the most one connection may hold", maxSubscriptions)
	} else {
		d.joins = append(d.joins, j)
	}
	conns := d.liveLocked()
	d.mu.Unlock()
	return sendJoins(ctx, conns, wire.KindSubscribe, []dishJoin{j})
}

// Leave drops filter and tells every live connection; an unknown filter
// is not an error.
func (d *Dish) Leave(ctx context.Context, filter string) error {
	if err := subCheckFilter(filter); err != nil {
		return err
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errEndpointClosed()
	}
	d.joins = slices.DeleteFunc(d.joins, func(h dishJoin) bool { return h.filter == filter })
	conns := d.liveLocked()
	d.mu.Unlock()
	return sendJoins(ctx, conns, wire.KindUnsubscribe, []dishJoin{{filter: filter}})
}

// Recv waits for the next segment or datagram segment from any radio. A
// segment is read whole if it is at most maxBytes; a larger one (or a
// larger datagram) is discarded and the error is LimitExceeded, and the
// dish stays usable. A segment the radio reset on the way (superseded,
// expired, cut) is skipped: it is a gap, not an error.
func (d *Dish) Recv(ctx context.Context, maxBytes int64) (DishMessage, error) {
	for {
		it, err := d.r.next(ctx)
		if err != nil {
			return DishMessage{}, err
		}
		if it.datagram != nil {
			if int64(len(it.datagram.Payload)) > maxBytes {
				return DishMessage{}, errs.New(errs.KindLimitExceeded, "a datagram segment of %d bytes exceeds the %d-byte ceiling", len(it.datagram.Payload), maxBytes)
			}
			return *it.datagram, nil
		}
		msg, err := collectSegment(ctx, it.stream, maxBytes)
		if errs.KindOf(err) == errs.KindCanceled && ctx.Err() == nil {
			continue
		}
		return msg, err
	}
}

// collectSegment reads a stream segment whole, abandoning it when ctx ends.
func collectSegment(ctx context.Context, in *transport.InStream, maxBytes int64) (DishMessage, error) {
	stop := context.AfterFunc(ctx, func() { in.Refuse(wire.CodeCanceled) })
	defer stop()
	t := newIncomingTransfer(in)
	payload, err := t.Collect(maxBytes)
	if err != nil {
		return DishMessage{}, err
	}
	meta := t.Meta()
	number, _ := meta.Segment()
	layer, _ := meta.Layer()
	topic, _ := meta.Topic()
	return DishMessage{Kind: DishSegment, Payload: payload, Topic: topic, Segment: number, Layer: layer, Meta: meta}, nil
}

// PeerCount is the number of live radio connections.
func (d *Dish) PeerCount() int { return d.d.peerCount() }

// Events returns a reader of this dish's connection transitions.
func (d *Dish) Events() *PeerEvents { return d.d.events.subscribe() }

// Stale counts segments discarded on arrival because a newer one on their
// topic had already arrived on that connection.
func (d *Dish) Stale() uint64 { return d.r.stale.Load() }

// Overflow counts segments discarded on arrival because the receive queue
// was full.
func (d *Dish) Overflow() uint64 { return d.r.overflow.Load() }

// Close releases the dish's connections (radios drop its joins with them)
// and stops its redials; a blocked Recv returns Canceled.
func (d *Dish) Close() error {
	d.mu.Lock()
	d.closed = true
	d.conns = nil
	d.mu.Unlock()
	d.d.close()
	d.r.close()
	return nil
}

// announce is the dialer's onLive hook: every join, with its terms, on a
// new or redialled connection before the slot goes live.
func (d *Dish) announce(ctx context.Context, c *transport.Conn) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errEndpointClosed()
	}
	for old := range d.conns {
		if old.Err() != nil {
			delete(d.conns, old)
		}
	}
	d.conns[c] = struct{}{}
	joins := slices.Clone(d.joins)
	d.mu.Unlock()
	d.r.fresh.forgetEnded()
	return sendJoins(ctx, []*transport.Conn{c}, wire.KindSubscribe, joins)
}

func (d *Dish) liveLocked() []*transport.Conn {
	out := make([]*transport.Conn, 0, len(d.conns))
	for c := range d.conns {
		if c.Err() != nil {
			delete(d.conns, c)
			continue
		}
		out = append(out, c)
	}
	return out
}

// sendJoins sends one SUBSCRIBE or UNSUBSCRIBE per join on each
// connection, with the join's terms. A connection that ended meanwhile is
// skipped: its redial re-sends them.
func sendJoins(ctx context.Context, conns []*transport.Conn, kind wire.Kind, joins []dishJoin) error {
	for _, c := range conns {
		for _, j := range joins {
			sub := wire.Subscribe{Endpoint: c.Path(), Filter: j.filter}
			if kind == wire.KindSubscribe {
				if j.opts.MaxAge > 0 {
					sub.MaxAgeMs = wire.Some(uint64(max(j.opts.MaxAge.Milliseconds(), 1)))
				}
				if j.opts.CapLayers {
					sub.MaxLayer = wire.Some(uint64(j.opts.MaxLayer))
				}
			}
			_, err := c.OpenControl(ctx, kind, &sub)
			if ctx.Err() != nil {
				return errs.Wrap(errs.KindCanceled, ctx.Err(), "join not sent")
			}
			if err != nil && c.Err() == nil {
				return err
			}
			if err != nil {
				break
			}
		}
	}
	return nil
}
