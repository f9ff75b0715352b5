package transport

import (
	"testing"

	"github.com/quic-go/quic-go/qlog"
)

// A probe timeout or a path migration declares packets lost without a
// PacketLost event; the frames they carried are sent again. The records
// of the packets that went silent are freed once their bytes are re-sent,
// and the retransmission carries the receipt on.
func TestReceiptRecordOfAPacketLostWithoutAnEventIsFreed(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(4)
	tr.finish(r, 100)
	tr.RecordEvent(sent(1, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 60}, &qlog.StreamFrame{StreamID: 4, Offset: 60, Length: 40, Fin: true}))
	// No PacketLost for 1: its frames go again, split differently.
	tr.RecordEvent(sent(2, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 50}))
	tr.RecordEvent(sent(3, &qlog.StreamFrame{StreamID: 4, Offset: 50, Length: 50, Fin: true}))
	tr.RecordEvent(ack([2]int64{2, 3}))
	if !resolved(r) {
		t.Fatal("the retransmission was acknowledged, the receipt did not resolve")
	}
	if err := r.Err(); err != nil {
		t.Fatalf("receipt: %v", err)
	}
	if len(tr.pending) != 0 {
		t.Fatalf("%d packet records kept after every byte was acknowledged; want the silent loss freed", len(tr.pending))
	}
}

// quic-go logs a received packet even when handling it failed: an ACK for a
// packet number never sent, or for one quic-go skipped, fails the packet and
// closes the connection. Such a packet resolves no receipt.
func TestReceiptIgnoresTheAcksOfARejectedPacket(t *testing.T) {
	tests := []struct {
		name   string
		ranges [][2]int64
	}{
		{"a packet never sent", [][2]int64{{1, 5}}},
		{"a skipped packet number", [][2]int64{{1, 4}}},
		{"a skipped number beside a good range", [][2]int64{{3, 4}, {1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newReceiptTracker(true)
			r := tr.watch(4)
			tr.finish(r, 10)
			tr.RecordEvent(sent(1, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 10, Fin: true}))
			tr.RecordEvent(sent(2))
			tr.RecordEvent(sent(4)) // quic-go skipped 3
			tr.RecordEvent(ack(tt.ranges...))
			if resolved(r) {
				t.Fatal("a rejected packet's ACK resolved the receipt")
			}
			tr.RecordEvent(ack([2]int64{1, 2}))
			if !resolved(r) {
				t.Fatal("a valid ACK did not resolve the receipt")
			}
		})
	}
}

// A retransmission frees only its own stream's silent records, found
// between the first and the last packet that carried the stream, and keeps
// the records of streams sent before, between and after.
func TestReceiptRetransmissionFreesOnlyItsStreamsRecords(t *testing.T) {
	tr := newReceiptTracker(true)
	before, r, after := tr.watch(0), tr.watch(4), tr.watch(8)
	tr.finish(before, 10)
	tr.finish(r, 20)
	tr.finish(after, 10)
	tr.RecordEvent(sent(1, &qlog.StreamFrame{StreamID: 0, Offset: 0, Length: 10, Fin: true}))
	tr.RecordEvent(sent(2, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 10}))
	tr.RecordEvent(sent(3, &qlog.StreamFrame{StreamID: 8, Offset: 0, Length: 10, Fin: true}))
	tr.RecordEvent(sent(4, &qlog.StreamFrame{StreamID: 4, Offset: 10, Length: 10, Fin: true}))
	// Packets 2 and 4 went silent: r's bytes go again in one packet.
	tr.RecordEvent(sent(5, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 20, Fin: true}))
	if got := livePackets(tr); got != 3 {
		t.Fatalf("%d live packet records, want 3 (1, 3 and the retransmission 5)", got)
	}
	tr.RecordEvent(ack([2]int64{5, 5}))
	if !resolved(r) || resolved(before) || resolved(after) {
		t.Fatalf("resolved: r %v, before %v, after %v; want only r", resolved(r), resolved(before), resolved(after))
	}
	tr.RecordEvent(ack([2]int64{1, 3}))
	if !resolved(before) || !resolved(after) {
		t.Fatal("the other streams' records were freed with r's")
	}
}

// livePackets counts the packet records still carrying a range.
func livePackets(tr *receiptTracker) int {
	n := 0
	for _, p := range tr.pending {
		if p.n != 0 {
			n++
		}
	}
	return n
}
