package transport

import (
	"sort"

	"github.com/quic-go/quic-go/qlog"
)

// Two things quic-go does that its qlog events do not say outright, and how
// the receipt tracker reads them.
//
// A packet can be declared lost without a PacketLost event (a probe timeout
// re-sends the oldest packet's frames, a path migration every packet's;
// sent_packet_handler.go): its record would never be acknowledged nor
// spent. quic-go re-sends a stream's bytes only once the packet that carried
// them counts as lost, and new bytes only ever at higher offsets, so a range
// sent below the stream's highest offset sent is a retransmission: the
// older records of those bytes are freed (retransmittedLocked). The
// retransmission's own record carries the receipt on.
//
// quic-go logs a received packet after handling its frames, also when the
// handling failed and the connection is about to close: an ACK for a packet
// number never sent, or for one it skipped on purpose to catch a peer
// acknowledging what it never received, is such a failure. The ACK ranges of
// a packet with such an ACK resolve nothing (rejectedAckLocked).

// maxSkippedRemembered bounds the skipped packet numbers kept: quic-go
// skips about one in every few hundred to thousand packets.
const maxSkippedRemembered = 16

// sentNumbers is what the tracker knows of the 1-RTT packet numbers sent.
type sentNumbers struct {
	largest qlog.PacketNumber
	any     bool
	skipped [maxSkippedRemembered]qlog.PacketNumber
	nSkip   int // skipped[:min(nSkip, len)] hold the latest, ring-wise
}

// onSentLocked notes pn; a number jumped over is one quic-go skipped.
func (s *sentNumbers) onSentLocked(pn qlog.PacketNumber) {
	if s.any && pn > s.largest+1 {
		for skip := s.largest + 1; skip < pn && skip < s.largest+1+maxSkippedRemembered; skip++ {
			s.skipped[s.nSkip%maxSkippedRemembered] = skip
			s.nSkip++
		}
	}
	if !s.any || pn > s.largest {
		s.largest, s.any = pn, true
	}
}

// rejectedAckLocked reports whether quic-go refuses ack: it acknowledges a
// packet number above any sent, or one quic-go skipped.
func (s *sentNumbers) rejectedAckLocked(ack *qlog.AckFrame) bool {
	for _, r := range ack.AckRanges {
		if !s.any || r.Largest > s.largest {
			return true
		}
		for i := range min(s.nSkip, maxSkippedRemembered) {
			if p := s.skipped[i]; r.Smallest <= p && p <= r.Largest {
				return true
			}
		}
	}
	return false
}

// rejectedPacketLocked reports whether any ACK frame in frames is one
// quic-go refuses.
func (t *receiptTracker) rejectedPacketLocked(frames []qlog.Frame) bool {
	for _, f := range frames {
		if ack, ok := f.Frame.(*qlog.AckFrame); ok && t.sent.rejectedAckLocked(ack) {
			return true
		}
	}
	return false
}

// retransmittedLocked notes that r's bytes [start, end) (and the FIN with
// fin) are being sent again: the records that carried them before belong
// to packets quic-go counts as lost, whether or not it said so, and are
// freed. A range that extends the stream is new and frees nothing.
func (t *receiptTracker) retransmittedLocked(r *Receipt, start, end int64, fin bool) {
	resent := start < r.sentHigh || (fin && r.finSent)
	r.sentHigh = max(r.sentHigh, end)
	r.finSent = r.finSent || fin
	if !resent || !r.sentAny {
		return
	}
	// Only the records between the first and the last packet that carried
	// r can hold its ranges: a retransmission under load costs a search
	// and those records, not a walk of every packet in flight.
	first := sort.Search(len(t.pending), func(i int) bool { return t.pending[i].pn >= r.firstPN })
	for i := first; i < len(t.pending) && t.pending[i].pn <= r.lastPN; i++ {
		p := &t.pending[i]
		if p.n == 0 || !p.dropRangesOf(r, start, end, fin) {
			continue
		}
		p.spend()
		t.spent++
	}
}

// carried notes that packet pn carries a range of r; packet numbers only
// grow, so the first and the last bound where r's records are.
func (r *Receipt) carried(pn qlog.PacketNumber) {
	if !r.sentAny {
		r.firstPN, r.sentAny = pn, true
	}
	r.lastPN = pn
}

// dropRangesOf forgets p's ranges of r that [start, end) (or, with fin, the
// FIN) covers again; true when no range is left.
func (p *sentPacket) dropRangesOf(r *Receipt, start, end int64, fin bool) bool {
	live := 0
	drop := func(sr *sentRange) {
		if sr.receipt == r && (sr.start < end && start < sr.end || fin && sr.fin && sr.start >= start) {
			sr.receipt = nil
		}
		if sr.receipt != nil {
			live++
		}
	}
	for i := 0; i < p.n && i < len(p.inline); i++ {
		drop(&p.inline[i])
	}
	for i := range p.more {
		drop(&p.more[i])
	}
	return live == 0
}
