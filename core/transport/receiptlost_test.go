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
