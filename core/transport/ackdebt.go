package transport

import (
	"time"

	"github.com/quic-go/quic-go/qlog"
)

// A peer's transport receipt (every byte and the FIN acknowledged) needs
// this side's ACK, and quic-go delays an ACK by up to max_ack_delay. A
// CONNECTION_CLOSE carries no ACK frame, so a side that closes right after
// reading a transfer to its end can leave its sender with Indeterminate for
// bytes it held. A graceful close therefore first lets the ACKs it owes go
// out: the tracker compares the largest ack-eliciting packet received with
// the largest one an ACK it sent covered.
//
// quic-go logs a received packet only after handing its frames over, so a
// reader can hold a transfer's last bytes and FIN before the tracker has
// heard of the packet that carried them. The close therefore first waits
// for the packets quic-go has begun handling to be logged: the tracker
// notes the connection's received-bytes count at each logged packet, and
// a count that is ahead of it at the close means one is still in hand. (A
// packet quic-go drops without logging it makes the close wait out the
// limit instead.)

// ackFlushLimit bounds that wait: quic-go's max_ack_delay (25 ms) and a
// margin for its connection loop to get to the ACK.
const ackFlushLimit = 50 * time.Millisecond

// ackDebt is the tracker's record of what it owes; guarded by its mu.
type ackDebt struct {
	owed  qlog.PacketNumber // largest ack-eliciting 1-RTT packet received; -1: none
	acked qlog.PacketNumber // largest 1-RTT packet an ACK sent so far covered; -1: none
	paid  chan struct{}     // closed once acked reaches owed, while a close waits

	logged   uint64        // received bytes counted when the latest packet was logged
	awaited  uint64        // the count a waiting close needs logged
	caughtUp chan struct{} // closed once logged reaches awaited, while a close waits
}

func (d *ackDebt) init() { d.owed, d.acked = -1, -1 }

// onReceivedLocked notes a received packet that asks for an ACK.
func (d *ackDebt) onReceivedLocked(pn qlog.PacketNumber, frames []qlog.Frame) {
	if pn <= d.owed {
		return
	}
	for _, f := range frames {
		switch f.Frame.(type) {
		case *qlog.AckFrame, *qlog.ConnectionCloseFrame:
		default:
			d.owed = pn
			return
		}
	}
}

// onLoggedLocked notes that quic-go logged a packet (received or dropped)
// while its received-bytes count stood at begun.
func (d *ackDebt) onLoggedLocked(begun uint64) {
	d.logged = max(d.logged, begun)
	if d.caughtUp != nil && d.logged >= d.awaited {
		close(d.caughtUp)
		d.caughtUp = nil
	}
}

// onAckSentLocked notes an ACK frame this side sent.
func (d *ackDebt) onAckSentLocked(ack *qlog.AckFrame) {
	for _, r := range ack.AckRanges {
		d.acked = max(d.acked, r.Largest)
	}
	if d.paid != nil && d.acked >= d.owed {
		close(d.paid)
		d.paid = nil
	}
}

// awaitAcksSent waits until every packet quic-go has begun handling is
// logged and every ack-eliciting one among them is covered by an ACK sent,
// or ackFlushLimit passed, or the connection ended.
func (t *receiptTracker) awaitAcksSent(done <-chan struct{}) {
	timer := time.NewTimer(ackFlushLimit)
	defer timer.Stop()
	begun := t.bytesBegun()
	for _, pending := range []func() <-chan struct{}{func() <-chan struct{} { return t.unlogged(begun) }, t.unpaid} {
		wait := pending()
		if wait == nil {
			continue
		}
		select {
		case <-wait:
		case <-done:
			return
		case <-timer.C:
			return
		}
	}
}

// unlogged is closed once the packets quic-go had begun handling when the
// received-bytes count stood at begun are all logged; nil when they already are.
func (t *receiptTracker) unlogged(begun uint64) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := &t.debt
	if d.logged >= begun {
		return nil
	}
	d.awaited = max(d.awaited, begun)
	if d.caughtUp == nil {
		d.caughtUp = make(chan struct{})
	}
	return d.caughtUp
}

// unpaid is closed once every ack-eliciting packet logged so far is covered
// by an ACK sent; nil when it already is.
func (t *receiptTracker) unpaid() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := &t.debt
	if d.acked >= d.owed {
		return nil
	}
	if d.paid == nil {
		d.paid = make(chan struct{})
	}
	return d.paid
}

// bytesBegun is the connection's received-bytes count: quic-go adds each
// packet's size before it handles the packet's frames. Zero until the
// connection is set (and always on local transports).
func (t *receiptTracker) bytesBegun() uint64 {
	if qc := t.qc.Load(); qc != nil {
		return qc.ConnectionStats().BytesReceived
	}
	return 0
}
