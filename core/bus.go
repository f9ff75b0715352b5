package weida

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// BusMember is a member of a BUS (SEMANTICS.md §2.6), the only role that is
// both bound and dialling: other members' transfers arrive at its path and
// queue like a Puller's, and Send gives one copy to every member this one
// dialled with Connect. There is no membership protocol and no relay: n
// fully connected members make n·(n−1) deliveries per round. A member never
// sends to itself, structurally: it writes only on connections it dialled.
//
// Fan-out is Drop, never Block: each dialled member has its own writer,
// bounded by Config.EndpointQueue copies and Config.SubscriberBufferBytes of
// payload; a copy that does not fit is dropped and counted in Dropped, and
// so is a copy whose write fails. The sender never stalls.
type BusMember struct {
	l     *Listener
	at    string
	inbox *queueRoute
	d     *dialer

	mu      sync.Mutex
	writers map[*transport.Conn]*copyWriter // one per dialled live connection
	closed  bool
	dropped atomic.Uint64
}

// Bus registers a bus member at path; the members it connects to are
// verified under trust.
func (l *Listener) Bus(path string, trust Trust, opts ...EndpointOption) (*BusMember, error) {
	inbox := newQueueRoute(l.rt.cfg.EndpointQueue, true, false)
	if err := l.register(path, inbox); err != nil {
		return nil, err
	}
	return &BusMember{l: l, at: path, inbox: inbox, d: newDialer(l.rt, trust, opts),
		writers: make(map[*transport.Conn]*copyWriter)}, nil
}

// Bus registers a bus member at path on the binding's listener.
func (b *Binding) Bus(path string, trust Trust, opts ...EndpointOption) (*BusMember, error) {
	return b.rt.listener.Bus(path, trust, opts...)
}

// Connect dials another member's URL and adds it to the members this one
// sends to. A lost member is redialled under the reconnect policy.
func (m *BusMember) Connect(ctx context.Context, url string) error { return m.d.connect(ctx, url) }

// Disconnect stops sending to url's member; it reports whether there was one.
func (m *BusMember) Disconnect(url string) bool { return m.d.disconnect(url) }

// Send gives one copy of payload to every live member this one dialled and
// returns how many were reached (0 with none: nothing is kept for later).
// It never waits for a member. A payload above Config.SubscriberBufferBytes
// fails with LimitExceeded before any member is charged. The caller may
// reuse payload once Send returns: copies that go out at once are written
// from it, and those that queue share one copy of it.
func (m *BusMember) Send(ctx context.Context, payload []byte) (int, error) {
	if int64(len(payload)) > m.l.rt.cfg.SubscriberBufferBytes {
		return 0, errs.New(errs.KindLimitExceeded, "a bus payload of %d bytes exceeds the per-member budget of %d bytes",
			len(payload), m.l.rt.cfg.SubscriberBufferBytes)
	}
	if err := ctx.Err(); err != nil {
		return 0, errs.Wrap(errs.KindCanceled, err, "send abandoned")
	}
	live := m.d.liveConns()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, errEndpointClosed()
	}
	m.pruneLocked(live)
	if len(live) == 0 {
		return 0, nil
	}
	shared := sharedPayload{src: payload}
	reached := 0
	for _, c := range live {
		if m.writerLocked(c).offer(TransferMeta{}.whole(len(payload)).header(c.Path()), &shared) == DropNone {
			reached++
		} else {
			m.dropped.Add(1)
		}
	}
	return reached, nil
}

// writerLocked returns c's writer, starting one for a new connection.
func (m *BusMember) writerLocked(c *transport.Conn) *copyWriter {
	w, ok := m.writers[c]
	if !ok {
		w = newCopyWriter(m.l.rt, c, m.l.rt.cfg.EndpointQueue, m.l.rt.cfg.SubscriberBufferBytes,
			func(string, DropCause) { m.dropped.Add(1) })
		m.writers[c] = w
	}
	return w
}

// pruneLocked stops the writers of connections that are no longer live (a
// dead member is dropped; its queued copies count as dropped at the wire).
func (m *BusMember) pruneLocked(live []*transport.Conn) {
	for c, w := range m.writers {
		if !slices.Contains(live, c) {
			w.close()
			delete(m.writers, c)
		}
	}
}

// Recv waits for the next copy another member sent here and reads it whole
// if it is at most maxBytes; above the ceiling it is refused and Recv
// returns LimitExceeded.
func (m *BusMember) Recv(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, error) {
	return pairCollectNext(ctx, m.inbox, maxBytes)
}

// PeerCount is the number of dialled members whose connection is live.
func (m *BusMember) PeerCount() int { return m.d.peerCount() }

// Events returns a reader of the dialled members' slot transitions.
func (m *BusMember) Events() *PeerEvents { return m.d.events.subscribe() }

// Dropped counts copies dropped: at a member's full queue or budget, or
// at the wire when a write failed (the member's connection ended).
func (m *BusMember) Dropped() uint64 { return m.dropped.Load() }

// Path is the member's registered path.
func (m *BusMember) Path() string { return m.at }

// Close unregisters the path (queued inbound copies are refused, blocked
// Recv calls return Canceled), stops every writer (their queued copies count
// as dropped) and releases the dialled connections.
func (m *BusMember) Close() error {
	m.l.unregister(m.at, m.inbox)
	m.inbox.close()
	m.mu.Lock()
	m.closed = true
	m.pruneLocked(nil)
	m.mu.Unlock()
	m.d.close()
	return nil
}
