package weida

import (
	"sync"
	"sync/atomic"

	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Per-producer sequencing (SEMANTICS.md §4.1, PROTOCOL.md §8.3.2) lives per
// connection: the producer is the connection peer unless DATA key 7 names
// another, so the counters restart with every connection. A connection
// numbers its one-way transfers only when its agreed set asks for it; one
// that agreed on core touches no table, keeps no entry and writes no key.
//
// Numbering is per connection and scope, so a publisher's "once per
// message, before fan-out" (§8.3.2) is read as: at publish time, before the
// drop decision, every matching subscriber connection draws its own next
// number for the topic, and a copy dropped afterwards keeps it, leaving a
// hole that subscriber sees as missed. Copies to different subscribers may
// then carry different numbers (each connection counts from 0, and only the
// topics its filters match), which is what keeps every connection's
// sequence contiguous and a gap meaningful.

// seqScope names one numbered sequence on a connection: its producer and
// its topic, else its path. The zero producer is the connection peer (DATA
// key 7 absent), so a scope costs no allocation to look up.
type seqScope struct {
	producer [wire.ProducerLen]byte
	name     string
}

// seqScopeOf is the scope of the transfer h heads, alike on both ends.
func seqScopeOf(h *wire.Data) seqScope {
	s := seqScope{producer: h.Producer.V, name: h.Endpoint.V}
	if h.Topic.Ok {
		s.name = h.Topic.V
	}
	return s
}

// seqAgreed reports whether the agreed set g numbers one-way transfers:
// under PerProducer ordering (detect or reassemble, the only levels above
// None this build agrees to), or under Bounded deduplication, whose identity
// (producer, scope, sequence) needs the number even with ordering None.
func seqAgreed(g wire.GuaranteeSet) bool { return g.Ordering != 0 || g.Deduplication != 0 }

// seqConns holds the sequencing state of every connection that numbered or
// received a numbered transfer, keyed by *transport.Conn. Connections are
// unique in the process, so one table serves every Runtime (the sending
// paths know only the connection). The connection's Closed callback
// removes its entry (seqForget).
var seqConns sync.Map

// seqConn is one connection's sequencing state: the counters of what this
// side sends, and the receiving side made for the agreed levels.
type seqConn struct {
	sendMu sync.Mutex
	sender *guarantee.Sequencer[seqScope] // made at the first numbered send

	recv atomic.Pointer[seqReceiver] // made at the first numbered arrival
}

// seqStateOf returns c's state, making it on first use.
func seqStateOf(c *transport.Conn) *seqConn {
	if st, ok := seqConns.Load(c); ok {
		return st.(*seqConn)
	}
	st, loaded := seqConns.LoadOrStore(c, &seqConn{})
	if !loaded && c.Err() != nil {
		// The connection ended meanwhile, and its Closed callback may have
		// run before the store: nothing else would remove the entry.
		seqConns.Delete(c)
	}
	return st.(*seqConn)
}

// seqForget drops c's state; its Closed callback calls it.
func seqForget(c *transport.Conn) { seqConns.Delete(c) }

// numberOpened numbers out, a one-way transfer that holds its stream and
// has written nothing: it rewrites out's header with h's next sequence
// number and only then draws the number, under the lock that orders the
// connection's draws, so a header the peer would refuse spends none and
// every number drawn goes on the wire with its header.
func numberOpened(c *transport.Conn, out *transport.OutStream, h *wire.Data) error {
	st := seqStateOf(c)
	st.sendMu.Lock()
	defer st.sendMu.Unlock()
	sender := st.senderLocked()
	scope := seqScopeOf(h)
	n, ok := sender.Peek(scope)
	h.Sequence = wire.Opt[uint64]{}
	if ok {
		h.Sequence = wire.Some(n)
	}
	if err := out.Restamp(h); err != nil {
		return err
	}
	sender.Next(scope)
	return nil
}

// seqNumber writes into h the next number of its scope on c (DATA key 6),
// when c agreed on sequencing: a publication's copies are numbered before
// they fan out, so a copy dropped is a hole (SEMANTICS.md §4.1). Beyond
// guarantee.MaxSequenceScopes scopes the transfer goes out unnumbered, which
// the receiver passes straight through.
func seqNumber(c *transport.Conn, h *wire.Data) {
	if !seqAgreed(c.Agreed().Guarantees) {
		return
	}
	st := seqStateOf(c)
	st.sendMu.Lock()
	n, ok := st.senderLocked().Next(seqScopeOf(h))
	st.sendMu.Unlock()
	if ok {
		h.Sequence = wire.Some(n)
	}
}

// senderLocked is the connection's sequencer, made on first use; st.sendMu
// is held.
func (st *seqConn) senderLocked() *guarantee.Sequencer[seqScope] {
	if st.sender == nil {
		st.sender = guarantee.NewSequencer[seqScope](guarantee.MaxSequenceScopes)
	}
	return st.sender
}
