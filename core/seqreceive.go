package weida

import (
	"sync"

	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// seqMark is what sequencing found for one received transfer; its
// IncomingMeta shows it (Sequence, Missed).
type seqMark struct {
	sequence uint64
	numbered bool
	missed   uint64 // numbers skipped just before this one
}

// transfer wraps a queued one-way transfer with what sequencing found.
func (it inbound) transfer() *IncomingTransfer {
	return &IncomingTransfer{in: it.data, meta: it.meta()}
}

// meta is the transfer's meta, for a receive that hands out the payload
// and its meta but no IncomingTransfer (nothing more to allocate for it).
func (it inbound) meta() IncomingMeta {
	m := newIncomingMeta(it.data.Conn(), &it.data.Header)
	m.order = it.order
	return m
}

// deliverData queues a one-way transfer at r after what its connection
// agreed on: deduplication first, so a repeat never reaches the route; then
// gap detection or reassembly. An unnumbered transfer, and every transfer
// of a connection that agreed on core, goes straight to the queue: a
// receiver that did not agree on sequencing ignores DATA key 6.
//
// It runs on the connection's accept goroutine, which a route other than
// a queue may still hold in enqueue, so the frames on this path are kept
// small: a deep stack here is a stack copy per transfer.
func (rt *Runtime) deliverData(r route, in *transport.InStream) {
	if rc := rt.seqReceiverOf(in); rc != nil {
		rc.deliver(r, in)
		return
	}
	enqueueData(r, inbound{data: in})
}

// seqReceiverOf is the receiving side of in's connection when in is
// numbered and the connection agreed on sequencing; nil otherwise.
func (rt *Runtime) seqReceiverOf(in *transport.InStream) *seqReceiver {
	g := in.Conn().Agreed().Guarantees
	if !seqAgreed(g) || !in.Header.Sequence.Ok {
		return nil
	}
	return seqStateOf(in.Conn()).receiver(rt, g)
}

// enqueueData hands it to r, or refuses it when r or the connection went away.
func enqueueData(r route, it inbound) {
	if !r.enqueue(it) {
		it.data.Refuse(wire.CodeUnknownEndpoint)
	}
}

// seqReceiver is the receiving side of one connection's sequencing: the
// tables of the agreed levels (nil for a level not agreed), and the runs
// reassembly released that still wait for their route, per scope.
type seqReceiver struct {
	rt *Runtime // counts suppressed repeats; its clock runs the dedup window

	mu       sync.Mutex
	detect   *guarantee.Detector[seqScope]
	reorder  *guarantee.Reassembler[seqScope, seqHeld]
	dedup    *guarantee.Deduplicator[seqScope]
	ready    map[seqScope]*seqReady
	released []guarantee.Release[seqScope, seqHeld] // reused by each arrival
}

// seqHeld is what reassembly holds: the unread stream and where it goes.
type seqHeld struct {
	r  route
	in *transport.InStream
}

// seqReady is a scope's released run on its way to the route. One
// goroutine at a time drains it, so the route gets the scope's transfers in
// the order reassembly released them. It holds unread streams, each
// pinning a stream of the peer's budget, so QUIC's stream limit bounds it.
type seqReady struct {
	queue    []guarantee.Release[seqScope, seqHeld]
	draining bool
}

// receiver returns the connection's receiving side, made on first use for
// the agreed set g.
func (st *seqConn) receiver(rt *Runtime, g wire.GuaranteeSet) *seqReceiver {
	if rc := st.recv.Load(); rc != nil {
		return rc
	}
	st.recv.CompareAndSwap(nil, newSeqReceiver(rt, g)) // a racing arrival's receiver is dropped
	return st.recv.Load()
}

func newSeqReceiver(rt *Runtime, g wire.GuaranteeSet) *seqReceiver {
	rc := &seqReceiver{rt: rt}
	// The agreed set decoded when the HELLOs were negotiated, so its levels
	// are known; Supported kept the ones this build cannot honour out of it.
	set, _ := guarantee.FromWire(g)
	switch set.Ordering {
	case guarantee.PerProducerDetect:
		rc.detect = guarantee.NewDetector[seqScope](guarantee.MaxSequenceScopes)
	case guarantee.PerProducerReassemble:
		rc.reorder = guarantee.NewReassembler[seqScope, seqHeld](seqHoldCap(rt.cfg.Limits), guarantee.MaxSequenceScopes)
		rc.ready = make(map[seqScope]*seqReady)
	}
	if set.Deduplication == guarantee.DedupBounded {
		rc.dedup = guarantee.NewDeduplicator[seqScope](set.DedupWindow, guarantee.MaxDedupEntries)
	}
	return rc
}

// seqHoldCap is the reorder hold of a connection with limits l: 256
// (max_reorder_hold), but below the uni-stream credit this side grants, so
// the held streams can never take every stream the hole's transfer needs.
func seqHoldCap(l Limits) int {
	streams := l.MaxConcurrentUniStreams
	if streams == 0 {
		streams = transport.DefaultMaxUniStreams
	}
	return int(min(guarantee.MaxReorderHold, max(streams-1, 1)))
}

// seqVerdict is what becomes of one numbered arrival.
type seqVerdict uint8

const (
	seqDeliver  seqVerdict = iota // to the route now, with what detection found
	seqHold                       // to the reorder hold
	seqSuppress                   // a repeat within the dedup window
)

// deliver runs one numbered arrival through the agreed levels.
func (rc *seqReceiver) deliver(r route, in *transport.InStream) {
	switch mark, verdict := rc.admit(in); verdict {
	case seqDeliver:
		enqueueData(r, inbound{data: in, order: mark})
	case seqHold:
		rc.reassemble(r, in)
	case seqSuppress:
		rc.rt.dedupDiscard(in)
	}
}

// admit decides an arrival and, for one delivered now, marks it.
func (rc *seqReceiver) admit(in *transport.InStream) (seqMark, seqVerdict) {
	scope, n := seqScopeOf(&in.Header), in.Header.Sequence.V
	rc.mu.Lock()
	defer rc.mu.Unlock()
	// The clock is read under the lock, so the window sees non-decreasing times.
	if rc.dedup != nil && rc.dedup.Repeat(scope, n, rc.rt.dedup.clock()) {
		return seqMark{}, seqSuppress
	}
	if rc.reorder != nil {
		return seqMark{}, seqHold
	}
	mark := seqMark{sequence: n, numbered: true}
	if rc.detect != nil {
		mark.missed = rc.detect.Observe(scope, n)
	}
	return mark, seqDeliver
}

// reassemble offers an arrival to the hold and delivers what it releases,
// draining every scope that no other goroutine is draining yet.
func (rc *seqReceiver) reassemble(r route, in *transport.InStream) {
	scope, n := seqScopeOf(&in.Header), in.Header.Sequence.V
	// The scopes this goroutine must drain: one in practice, the arrival's
	// own or the one a forced release picked.
	var mine [2]seqScope
	drain := mine[:0]
	rc.mu.Lock()
	released := rc.reorder.Arrive(scope, n, seqHeld{r: r, in: in}, rc.released[:0])
	for _, rel := range released {
		q := rc.ready[rel.Scope]
		if q == nil {
			q = &seqReady{}
			rc.ready[rel.Scope] = q
		}
		q.queue = append(q.queue, rel)
		if !q.draining {
			q.draining = true
			drain = append(drain, rel.Scope)
		}
	}
	clear(released) // the scratch must not keep streams alive
	rc.released = released[:0]
	rc.mu.Unlock()
	for _, s := range drain {
		rc.drain(s)
	}
}

// drain hands scope's released run to its routes in order, until none is
// left. It may block on a full route queue: that is the backpressure.
func (rc *seqReceiver) drain(scope seqScope) {
	for {
		rc.mu.Lock()
		q := rc.ready[scope]
		if len(q.queue) == 0 {
			delete(rc.ready, scope)
			rc.mu.Unlock()
			return
		}
		rel := q.queue[0]
		q.queue[0] = guarantee.Release[seqScope, seqHeld]{}
		q.queue = q.queue[1:]
		rc.mu.Unlock()
		enqueueData(rel.Item.r, inbound{data: rel.Item.in,
			order: seqMark{sequence: rel.Sequence, numbered: true, missed: rel.Missed}})
	}
}
