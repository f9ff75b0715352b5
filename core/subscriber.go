package weida

import (
	"context"
	"slices"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Subscriber is the dialling side of Pub/Sub (SEMANTICS.md §2.3). It
// connects to publishers (several at once if it likes), tells each of them
// its filters, and receives the copies they send from one bounded queue
// (endpoint_queue) over all of them. Filters are its own state: they are
// sent on every connection and re-sent on every redial, where a re-sent
// subscription is a new one (a gap, not a resumption). Under core nothing
// tells a subscriber what it missed while slow; with PerProducer ordering
// agreed (Config.Guarantees), a copy the publisher dropped for it shows up as
// Missed on the next copy's meta (or on the copy reassembly lets go early).
type Subscriber struct {
	d *dialer
	q *queueRoute

	mu      sync.Mutex
	closed  bool
	filters []string                     // in subscription order, distinct
	limit   uint64                       // the standing credit grant (subscriber_credit.go)
	conns   map[*transport.Conn]struct{} // connections the filters were announced on
}

// Subscriber creates a subscriber that verifies publishers under trust.
func (rt *Runtime) Subscriber(trust Trust, opts ...EndpointOption) *Subscriber {
	s := &Subscriber{d: newDialer(rt, trust, opts),
		q:     newQueueRoute(rt.cfg.EndpointQueue, true, false),
		conns: make(map[*transport.Conn]struct{})}
	s.d.inbound = s.q
	s.d.onLive = s.announce
	// Close and Runtime.Shutdown both end the dialer: a blocked Recv must
	// learn it rather than wait for its context.
	context.AfterFunc(s.d.ctx, s.q.close)
	return s
}

// Connect dials a publisher's URL and sends it every filter held so far.
// One connection carries one path for one receiving endpoint: a second
// Subscriber of the same runtime on the same URL and terms fails with
// AlreadyRegistered.
func (s *Subscriber) Connect(ctx context.Context, url string) error { return s.d.connect(ctx, url) }

// Disconnect removes url's slot; it reports whether there was one.
func (s *Subscriber) Disconnect(url string) bool { return s.d.disconnect(url) }

// Subscribe adds filter (PROTOCOL.md §8.4.1; "" and "#" take every topic)
// and sends it on every live connection; later connections get it when
// they connect. A filter the grammar refuses, or longer than 256 bytes, is
// a Protocol error and nothing is sent; a 257th filter is LimitExceeded
// (the publisher would close the connection). Subscribing twice is harmless.
// Subscribe returns once the frames are handed to the transport: the
// publisher applies them shortly after, not before Subscribe returns.
func (s *Subscriber) Subscribe(ctx context.Context, filter string) error {
	if err := subCheckFilter(filter); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errEndpointClosed()
	}
	if !slices.Contains(s.filters, filter) {
		if len(s.filters) >= maxSubscriptions {
			s.mu.Unlock()
			return errs.New(errs.KindLimitExceeded, "subscribe: %d filters is the most one connection may hold", maxSubscriptions)
		}
		s.filters = append(s.filters, filter)
	}
	conns, limit := s.liveLocked(), s.limit
	s.mu.Unlock()
	if err := subSend(ctx, conns, wire.KindSubscribe, []string{filter}); err != nil {
		return err
	}
	return creditSend(ctx, conns, []string{filter}, limit)
}

// Unsubscribe removes filter and tells every live connection. An unknown
// filter is not an error.
func (s *Subscriber) Unsubscribe(ctx context.Context, filter string) error {
	if err := subCheckFilter(filter); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errEndpointClosed()
	}
	if i := slices.Index(s.filters, filter); i >= 0 {
		s.filters = slices.Delete(s.filters, i, i+1)
	}
	conns := s.liveLocked()
	s.mu.Unlock()
	return subSend(ctx, conns, wire.KindUnsubscribe, []string{filter})
}

// FilterCount is the number of filters held.
func (s *Subscriber) FilterCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.filters)
}

// Recv waits for the next copy from any publisher and reads it whole if it
// is at most maxBytes. A larger copy is refused and the error is
// LimitExceeded; a copy its publisher dropped mid-payload is Canceled. When
// ctx ends while a copy is being read, that copy is refused and Recv fails
// Canceled. In every case the subscriber stays usable: call Recv again.
func (s *Subscriber) Recv(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, error) {
	return s.RecvAppend(ctx, nil, maxBytes)
}

// RecvAppend is Recv appending the payload to dst, a buffer the caller
// lends (nil is Recv): once it has the room, a copy allocates nothing for
// its payload. The ceiling applies to the payload alone. The result shares
// dst's array, so dst may be reused once the caller is done with the copy.
func (s *Subscriber) RecvAppend(ctx context.Context, dst []byte, maxBytes int64) ([]byte, IncomingMeta, error) {
	it, err := s.q.next(ctx)
	if err != nil {
		return nil, IncomingMeta{}, err
	}
	payload, err := pullCollect(ctx, it.data, dst, maxBytes)
	if err != nil {
		return nil, IncomingMeta{}, err
	}
	return payload, it.meta(), nil
}

// RecvStream waits for the next copy and returns it unread, for payloads
// read as they arrive (a streamed fan-out). Close it when done.
func (s *Subscriber) RecvStream(ctx context.Context) (*IncomingTransfer, error) {
	it, err := s.q.next(ctx)
	if err != nil {
		return nil, err
	}
	return it.transfer(), nil
}

// PeerCount is the number of live publisher connections; it is the only
// sign that a publisher is gone.
func (s *Subscriber) PeerCount() int { return s.d.peerCount() }

// Events returns a reader of this subscriber's connection transitions.
func (s *Subscriber) Events() *PeerEvents { return s.d.events.subscribe() }

// Close releases the subscriber's connections (publishers drop its filters
// with them) and stops its redials; copies still queued are refused and a
// blocked Recv returns Canceled.
func (s *Subscriber) Close() error {
	s.mu.Lock()
	s.closed = true
	s.conns = nil
	s.mu.Unlock()
	s.d.close()
	s.q.close() // at once, rather than when the dialer's AfterFunc runs
	return nil
}

// announce is the dialer's onLive hook: it sends every filter on a new or
// redialled connection before the slot goes live. The connection is
// recorded first, so a concurrent Subscribe either sees it or its filter is
// in the snapshot sent here (possibly both: SUBSCRIBE is idempotent).
func (s *Subscriber) announce(ctx context.Context, c *transport.Conn) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errEndpointClosed()
	}
	s.conns[c] = struct{}{}
	filters, limit := append([]string(nil), s.filters...), s.limit
	s.mu.Unlock()
	if err := subSend(ctx, []*transport.Conn{c}, wire.KindSubscribe, filters); err != nil {
		return err
	}
	return creditSend(ctx, []*transport.Conn{c}, filters, limit)
}

// liveLocked returns the announced connections still alive, forgetting
// the ones that ended.
func (s *Subscriber) liveLocked() []*transport.Conn {
	out := make([]*transport.Conn, 0, len(s.conns))
	for c := range s.conns {
		if c.Err() != nil {
			delete(s.conns, c)
			continue
		}
		out = append(out, c)
	}
	return out
}

// subSend sends one control frame per filter on each connection. A
// connection that ended meanwhile is skipped: its redial re-sends them.
func subSend(ctx context.Context, conns []*transport.Conn, kind wire.Kind, filters []string) error {
	for _, c := range conns {
		for _, f := range filters {
			_, err := c.OpenControl(ctx, kind, &wire.Subscribe{Endpoint: c.Path(), Filter: f})
			if ctx.Err() != nil {
				return errs.Wrap(errs.KindCanceled, ctx.Err(), "subscription not sent")
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

// subCheckFilter refuses locally what a publisher would close the
// connection for (PROTOCOL.md §8.4.1).
func subCheckFilter(filter string) error {
	if len(filter) > wire.CapFilter {
		return errs.New(errs.KindProtocol, "the filter is %d bytes; the wire allows at most %d", len(filter), wire.CapFilter)
	}
	if err := wire.ValidateFilter(filter); err != nil {
		return errs.Wrap(errs.KindProtocol, err, "invalid filter")
	}
	return nil
}
