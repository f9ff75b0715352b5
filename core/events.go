package weida

import (
	"context"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// PeerEventKind says what happened to a dialled slot.
type PeerEventKind int

// The slot transitions of SEMANTICS.md §8.5.
const (
	EventConnected PeerEventKind = iota + 1 // a connection is live (URL, Fingerprint)
	EventLost                               // the connection ended (URL, Cause)
	EventRetrying                           // a redial is scheduled (URL, Attempt, Delay)
	EventGaveUp                             // the slot was given up (URL, Cause or PeerChanged)
	EventMissed                             // the reader lagged; Missed events are gone
)

func (k PeerEventKind) String() string {
	switch k {
	case EventConnected:
		return "Connected"
	case EventLost:
		return "Lost"
	case EventRetrying:
		return "Retrying"
	case EventGaveUp:
		return "GaveUp"
	case EventMissed:
		return "Missed"
	}
	return "PeerEventKind(?)"
}

// PeerEvent is one slot transition.
type PeerEvent struct {
	Kind        PeerEventKind
	URL         string
	Fingerprint Fingerprint   // Connected
	Cause       LossCause     // Lost, GaveUp
	PeerChanged bool          // GaveUp: the address answered with a different key
	Attempt     int           // Retrying
	Delay       time.Duration // Retrying
	Missed      int           // Missed
}

// eventCapacity is the bound of each reader's backlog.
const eventCapacity = 64

// PeerEvents is one reader's view of an endpoint's slot transitions: a
// bounded backlog of 64; a reader that lags gets one Missed event counting
// what it lost.
type PeerEvents struct {
	mu      sync.Mutex
	queue   []PeerEvent
	missed  int
	wake    chan struct{}
	closed  bool
	removed func()
}

func newPeerEvents() *PeerEvents { return &PeerEvents{wake: make(chan struct{}, 1)} }

func (e *PeerEvents) push(ev PeerEvent) {
	e.mu.Lock()
	if len(e.queue) >= eventCapacity {
		e.missed++
	} else {
		e.queue = append(e.queue, ev)
	}
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Next waits for the next event. After Close it returns Canceled.
func (e *PeerEvents) Next(ctx context.Context) (PeerEvent, error) {
	for {
		e.mu.Lock()
		if e.missed > 0 {
			n := e.missed
			e.missed = 0
			e.mu.Unlock()
			return PeerEvent{Kind: EventMissed, Missed: n}, nil
		}
		if len(e.queue) > 0 {
			ev := e.queue[0]
			e.queue = e.queue[1:]
			e.mu.Unlock()
			return ev, nil
		}
		closed := e.closed
		e.mu.Unlock()
		if closed {
			return PeerEvent{}, errs.New(errs.KindCanceled, "the event stream was closed")
		}
		select {
		case <-e.wake:
		case <-ctx.Done():
			return PeerEvent{}, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for events")
		}
	}
}

// Close stops this reader.
func (e *PeerEvents) Close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	if e.removed != nil {
		e.removed()
	}
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// eventHub broadcasts an endpoint's events to its readers.
type eventHub struct {
	mu      sync.Mutex
	readers map[*PeerEvents]struct{}
}

func (h *eventHub) subscribe() *PeerEvents {
	r := newPeerEvents()
	h.mu.Lock()
	if h.readers == nil {
		h.readers = make(map[*PeerEvents]struct{})
	}
	h.readers[r] = struct{}{}
	h.mu.Unlock()
	r.removed = func() {
		h.mu.Lock()
		delete(h.readers, r)
		h.mu.Unlock()
	}
	return r
}

func (h *eventHub) emit(ev PeerEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for r := range h.readers {
		r.push(ev)
	}
}
