package weida

import (
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// A failed negotiation is visible on both sides (SEMANTICS.md §3.3: never
// silently weakened). The dialling side's Connect fails with it; the
// accepting side has no caller to fail, so its Listener records it here.

// NegotiationFailure is a connection one of the listener's bindings
// accepted and closed with NEGOTIATION_FAILED, because the two HELLOs could
// not be reconciled (PROTOCOL.md §9): most often a guarantee dimension
// where one side requires a level the other does not offer.
type NegotiationFailure struct {
	// Remote is the dialler's UDP address ("ip:port").
	Remote string
	// Peer is the key the dialler proved; HasPeer is false for an anonymous one.
	Peer    Fingerprint
	HasPeer bool
	// Err is of kind Negotiation and names the dimension and both levels,
	// e.g. "ordering: the peer requires 2 (PerProducer reassemble), we offer
	// 1 (PerProducer detect)".
	Err error
}

// negotiationLogSize is how many failures a listener keeps: an unending
// stream of failing diallers must not grow memory.
const negotiationLogSize = 16

// negotiationLog is a listener's record of failed negotiations: the most
// recent ones, the count of all, and a channel closed at the next.
type negotiationLog struct {
	mu     sync.Mutex
	recent []NegotiationFailure // oldest first, at most negotiationLogSize
	total  uint64
	next   chan struct{}
}

// NegotiationFailures returns the most recent negotiation failures of
// connections the listener's bindings accepted (up to 16, oldest first),
// and how many there were in all.
func (l *Listener) NegotiationFailures() ([]NegotiationFailure, uint64) {
	l.failed.mu.Lock()
	defer l.failed.mu.Unlock()
	return append([]NegotiationFailure(nil), l.failed.recent...), l.failed.total
}

// NegotiationFailed returns a channel that is closed when the next
// negotiation failure after this call is recorded.
func (l *Listener) NegotiationFailed() <-chan struct{} {
	l.failed.mu.Lock()
	defer l.failed.mu.Unlock()
	if l.failed.next == nil {
		l.failed.next = make(chan struct{})
	}
	return l.failed.next
}

// note records c's end when it was a failed negotiation.
func (g *negotiationLog) note(c *transport.Conn, err error) {
	if errs.KindOf(err) != errs.KindNegotiation {
		return
	}
	f := NegotiationFailure{Remote: c.RemoteAddr(), Err: err}
	f.Peer, f.HasPeer = c.Peer()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.recent) == negotiationLogSize {
		g.recent = append(g.recent[:0], g.recent[1:]...)
	}
	g.recent = append(g.recent, f)
	g.total++
	if g.next != nil {
		close(g.next)
		g.next = nil
	}
}
