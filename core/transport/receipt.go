package transport

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"
)

// receiptTracker derives transport receipts from quic-go's typed qlog events
// (spec README, decision 1): it remembers which 1-RTT packet carried which
// byte ranges of a watched stream, and when the peer's ACK frames cover every
// byte and the FIN of a finished stream, that stream's receipt resolves.
// Nothing here is a timer or a guess: a receipt is exactly the peer
// transport's acknowledgement. A STOP_SENDING the peer sends for a watched
// stream resolves the receipt as a refusal, because quic-go then stops
// retransmitting and no acknowledgement would ever complete it.
//
// It implements qlogwriter.Trace and qlogwriter.Recorder; quic-go calls
// RecordEvent from its connection goroutine, so the work per event is a few
// map look-ups under one mutex.
type receiptTracker struct {
	mu      sync.Mutex
	pending []sentPacket // ascending packet numbers; entries with n == 0 are spent
	spent   int
	streams map[quic.StreamID]*Receipt
	closed  error // set once the connection is gone; new watches fail at once
	credit  creditTracker
	sent    sentNumbers               // 1-RTT packet numbers sent and skipped (receiptlost.go)
	debt    ackDebt                   // the ACKs this side owes its peer (ackdebt.go)
	qc      atomic.Pointer[quic.Conn] // set once the connection exists; read for its byte counts
}

// sentPacket records the watched stream ranges one packet carried. Most
// packets carry one or two STREAM frames, kept inline so recording a bulk
// transfer allocates nothing per packet.
type sentPacket struct {
	pn     qlog.PacketNumber
	n      int // ranges in use; 0 = spent
	inline [2]sentRange
	more   []sentRange
}

func (p *sentPacket) add(r sentRange) {
	if p.n < len(p.inline) {
		p.inline[p.n] = r
	} else {
		p.more = append(p.more, r)
	}
	p.n++
}

// each calls f for every range still carried (retransmittedLocked frees some).
func (p *sentPacket) each(f func(sentRange)) {
	for i := 0; i < p.n && i < len(p.inline); i++ {
		if p.inline[i].receipt != nil {
			f(p.inline[i])
		}
	}
	for _, r := range p.more {
		if r.receipt != nil {
			f(r)
		}
	}
}

// spend drops the record, and with it the receipts it points at.
func (p *sentPacket) spend() { p.n, p.inline, p.more = 0, [2]sentRange{}, nil }

// sentRange is a byte range of a watched stream in one packet. It points at
// the stream's receipt, so an acknowledgement needs no look-up by stream.
type sentRange struct {
	receipt    *Receipt
	start, end int64
	fin        bool
}

func newReceiptTracker(client bool) *receiptTracker {
	t := &receiptTracker{streams: make(map[quic.StreamID]*Receipt)}
	t.credit.init(client)
	t.debt.init()
	return t
}

// AddProducer implements qlogwriter.Trace.
func (t *receiptTracker) AddProducer() qlogwriter.Recorder { return t }

// Close implements qlogwriter.Recorder; the connection's end is reported by
// fail, which knows the cause.
func (t *receiptTracker) Close() error { return nil }

// RecordEvent implements qlogwriter.Recorder.
func (t *receiptTracker) RecordEvent(ev qlogwriter.Event) {
	switch e := ev.(type) {
	case qlog.PacketSent:
		if e.Header.PacketType == qlog.PacketType1RTT {
			t.onSent(e.Header.PacketNumber, e.Frames)
		}
	case qlog.PacketReceived:
		if e.Header.PacketType == qlog.PacketType1RTT {
			t.onReceived(e.Header.PacketNumber, e.Frames, t.bytesBegun())
		} else {
			t.onLogged(t.bytesBegun())
		}
	case qlog.PacketDropped, qlog.PacketBuffered:
		t.onLogged(t.bytesBegun())
	case qlog.PacketLost:
		if e.Header.PacketType == qlog.PacketType1RTT {
			t.onLost(e.Header.PacketNumber)
		}
	case qlog.ParametersSet:
		t.credit.onParameters(e)
	}
}

// onLogged notes a logged packet that carries nothing else the tracker reads.
func (t *receiptTracker) onLogged(begun uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.debt.onLoggedLocked(begun)
}

// watch starts tracking stream id in a new receipt; see watchInto.
func (t *receiptTracker) watch(id quic.StreamID) *Receipt {
	r := new(Receipt)
	t.watchInto(r, id)
	return r
}

// watchInto starts tracking stream id in r, a zero Receipt its stream half
// carries inline (one allocation fewer per stream). It must be called
// before the first write so no frame escapes the record.
func (t *receiptTracker) watchInto(r *Receipt, id quic.StreamID) {
	r.tracker, r.stream, r.final = t, id, -1
	r.acked = r.ackedInline[:0]
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed != nil {
		r.resolveLocked(t.closed)
		return
	}
	t.streams[id] = r
}

// finish records the stream's final size (bytes written, header included),
// called just before the FIN is queued.
func (t *receiptTracker) finish(r *Receipt, size int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.final = size
	r.checkLocked()
}

// settle resolves r with err and stops tracking it. Over QUIC err is never
// nil (acknowledgements resolve through finish); a local transport, whose
// FIN in the peer's buffer is the receipt, settles with nil.
func (t *receiptTracker) settle(r *Receipt, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.resolveLocked(err)
}

// fail resolves every outstanding receipt with err: the connection is gone
// and no acknowledgement can arrive any more.
func (t *receiptTracker) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed != nil {
		return
	}
	t.closed = err
	for _, r := range t.streams {
		r.resolveLocked(err)
	}
	t.pending = nil
}

func (t *receiptTracker) onSent(pn qlog.PacketNumber, frames []qlog.Frame) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent.onSentLocked(pn)
	var p *sentPacket
	for _, f := range frames {
		sf, ok := f.Frame.(*qlog.StreamFrame)
		if !ok {
			if ack, isAck := f.Frame.(*qlog.AckFrame); isAck {
				t.debt.onAckSentLocked(ack)
			}
			continue
		}
		r, watched := t.streams[sf.StreamID]
		if !watched {
			continue
		}
		t.retransmittedLocked(r, sf.Offset, sf.Offset+sf.Length, sf.Fin)
		if p == nil {
			t.pending = append(t.pending, sentPacket{pn: pn})
			p = &t.pending[len(t.pending)-1]
		}
		p.add(sentRange{receipt: r, start: sf.Offset, end: sf.Offset + sf.Length, fin: sf.Fin})
		r.carried(pn)
	}
}

func (t *receiptTracker) onReceived(pn qlog.PacketNumber, frames []qlog.Frame, begun uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.debt.onReceivedLocked(pn, frames)
	t.debt.onLoggedLocked(begun)
	if t.rejectedPacketLocked(frames) {
		return // quic-go closes the connection, which resolves every receipt
	}
	for _, f := range frames {
		switch fr := f.Frame.(type) {
		case *qlog.AckFrame:
			for _, ar := range fr.AckRanges {
				t.ackRangeLocked(ar.Smallest, ar.Largest)
			}
		case *qlog.StopSendingFrame:
			if r, ok := t.streams[fr.StreamID]; ok {
				r.resolveLocked(stopSendingError(uint64(fr.ErrorCode)))
			}
		case *qlog.MaxStreamsFrame:
			t.credit.onMaxStreams(fr)
		}
	}
	t.compactLocked()
}

func (t *receiptTracker) ackRangeLocked(lo, hi qlog.PacketNumber) {
	i := sort.Search(len(t.pending), func(i int) bool { return t.pending[i].pn >= lo })
	for ; i < len(t.pending) && t.pending[i].pn <= hi; i++ {
		p := &t.pending[i]
		if p.n == 0 {
			continue
		}
		p.each(func(sr sentRange) {
			if !sr.receipt.resolved { // a resolved receipt left t.streams
				sr.receipt.ackLocked(sr)
			}
		})
		p.spend()
		t.spent++
	}
}

func (t *receiptTracker) onLost(pn qlog.PacketNumber) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := sort.Search(len(t.pending), func(i int) bool { return t.pending[i].pn >= pn })
	if i < len(t.pending) && t.pending[i].pn == pn && t.pending[i].n != 0 {
		// quic-go retransmits the frames in new packets; those are tracked anew.
		t.pending[i].spend()
		t.spent++
	}
	t.compactLocked()
}

// compactLocked drops spent records once they are half the slice, moving
// the live ones to its front: amortised O(1) per record, and the slice keeps
// its capacity (re-slicing from the front would shrink it, and the next
// append would allocate again, once every few packets).
func (t *receiptTracker) compactLocked() {
	if t.spent > 0 && t.spent*2 >= len(t.pending) {
		kept := t.pending[:0]
		for _, p := range t.pending {
			if p.n != 0 {
				kept = append(kept, p)
			}
		}
		clear(t.pending[len(kept):])
		t.pending = kept
		t.spent = 0
	}
}

// outstanding returns the receipts that have not resolved yet.
func (t *receiptTracker) outstanding() []*Receipt {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Receipt, 0, len(t.streams))
	for _, r := range t.streams {
		out = append(out, r)
	}
	return out
}

// Receipt is the transport receipt of one outgoing stream half. It resolves
// once: nil when the peer's transport acknowledged every byte and the FIN,
// otherwise a refusal (STOP_SENDING), Canceled, or the connection's loss
// (which the caller relabels Indeterminate after FIN).
type Receipt struct {
	tracker     *receiptTracker
	stream      quic.StreamID
	acked       intervals
	ackedInline [2][2]int64       // acked's first ranges: acks mostly arrive in order
	final       int64             // -1 until finish
	sentHigh    int64             // the highest stream offset sent so far (receiptlost.go)
	firstPN     qlog.PacketNumber // the first and last packets that carried
	lastPN      qlog.PacketNumber // the stream, valid once sentAny
	sentAny     bool
	finSent     bool
	finAcked    bool
	resolved    bool
	// done is made by the first Done while unresolved (most receipts are
	// never waited on); all fields are guarded by tracker.mu.
	done chan struct{}
	err  error
}

// closedChan is the Done of a receipt that resolved before anyone asked.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Done is closed when the receipt resolved.
func (r *Receipt) Done() <-chan struct{} {
	r.tracker.mu.Lock()
	defer r.tracker.mu.Unlock()
	if r.done == nil {
		if r.resolved {
			return closedChan
		}
		r.done = make(chan struct{})
	}
	return r.done
}

// Err is the outcome once Done is closed: nil means delivered.
func (r *Receipt) Err() error {
	<-r.Done()
	r.tracker.mu.Lock()
	defer r.tracker.mu.Unlock()
	return r.err
}

func (r *Receipt) ackLocked(sr sentRange) {
	r.acked.add(sr.start, sr.end)
	if sr.fin {
		r.finAcked = true
	}
	r.checkLocked()
}

func (r *Receipt) checkLocked() {
	if r.final >= 0 && r.finAcked && r.acked.covers(r.final) {
		r.resolveLocked(nil)
	}
}

func (r *Receipt) resolveLocked(err error) {
	if r.resolved {
		return
	}
	r.resolved, r.err = true, err
	if r.done != nil {
		close(r.done)
	}
	delete(r.tracker.streams, r.stream)
	r.acked = nil
}

// intervals is a sorted set of disjoint half-open byte ranges.
type intervals [][2]int64

func (iv *intervals) add(start, end int64) {
	if start >= end {
		return
	}
	s := *iv
	// Acknowledgements mostly come in order: a first range, or one that
	// touches the end of the last, needs no search.
	if n := len(s); n == 0 || s[n-1][1] < start {
		*iv = append(s, [2]int64{start, end})
		return
	} else if last := &s[n-1]; last[0] <= start {
		last[1] = max(last[1], end)
		return
	}
	i := sort.Search(len(s), func(i int) bool { return s[i][1] >= start })
	j := i
	for j < len(s) && s[j][0] <= end {
		start = min(start, s[j][0])
		end = max(end, s[j][1])
		j++
	}
	if i == j {
		s = append(s, [2]int64{})
		copy(s[i+1:], s[i:])
		s[i] = [2]int64{start, end}
	} else {
		s[i] = [2]int64{start, end}
		s = append(s[:i+1], s[j:]...)
	}
	*iv = s
}

// covers reports whether [0, size) is acknowledged.
func (iv intervals) covers(size int64) bool {
	if size == 0 {
		return true
	}
	return len(iv) > 0 && iv[0][0] == 0 && iv[0][1] >= size
}

// stopSendingError maps a peer's STOP_SENDING code to the writer's outcome
// (PROTOCOL.md §10.2).
func stopSendingError(code uint64) error {
	return refusalError(code, "the peer stopped reading")
}
