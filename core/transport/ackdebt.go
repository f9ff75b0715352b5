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

// ackFlushLimit bounds that wait: quic-go's max_ack_delay (25 ms) and a
// margin for its connection loop to get to the ACK.
const ackFlushLimit = 50 * time.Millisecond

// ackDebt is the tracker's record of what it owes; guarded by its mu.
type ackDebt struct {
	owed  qlog.PacketNumber // largest ack-eliciting 1-RTT packet received; -1: none
	acked qlog.PacketNumber // largest 1-RTT packet an ACK sent so far covered; -1: none
	paid  chan struct{}     // closed once acked reaches owed, while a close waits
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

// awaitAcksSent waits until every ack-eliciting packet received so far is
// covered by an ACK sent, or ackFlushLimit passed, or the connection ended.
func (t *receiptTracker) awaitAcksSent(done <-chan struct{}) {
	t.mu.Lock()
	d := &t.debt
	if d.acked >= d.owed {
		t.mu.Unlock()
		return
	}
	if d.paid == nil {
		d.paid = make(chan struct{})
	}
	paid := d.paid
	t.mu.Unlock()
	timer := time.NewTimer(ackFlushLimit)
	defer timer.Stop()
	select {
	case <-paid:
	case <-done:
	case <-timer.C:
	}
}
