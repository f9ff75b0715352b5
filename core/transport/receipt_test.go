package transport

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/quic-go/quic-go/qlog"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/udpproxy"
)

func sent(pn int64, frames ...*qlog.StreamFrame) qlog.PacketSent {
	e := qlog.PacketSent{Header: qlog.PacketHeader{PacketType: qlog.PacketType1RTT, PacketNumber: qlog.PacketNumber(pn)}}
	for _, f := range frames {
		e.Frames = append(e.Frames, qlog.Frame{Frame: f})
	}
	return e
}

func ack(ranges ...[2]int64) qlog.PacketReceived {
	a := &qlog.AckFrame{}
	for _, r := range ranges {
		a.AckRanges = append(a.AckRanges, qlog.AckRange{Smallest: qlog.PacketNumber(r[0]), Largest: qlog.PacketNumber(r[1])})
	}
	return qlog.PacketReceived{Header: qlog.PacketHeader{PacketType: qlog.PacketType1RTT}, Frames: []qlog.Frame{{Frame: a}}}
}

func resolved(r *Receipt) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

func TestReceiptNeedsEveryByteAndTheFin(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(4)
	tr.RecordEvent(sent(1, &qlog.StreamFrame{StreamID: 4, Offset: 0, Length: 100}))
	tr.RecordEvent(sent(2, &qlog.StreamFrame{StreamID: 4, Offset: 100, Length: 50}))
	tr.finish(r, 150)
	tr.RecordEvent(sent(3, &qlog.StreamFrame{StreamID: 4, Offset: 150, Length: 0, Fin: true}))
	tr.RecordEvent(ack([2]int64{1, 1}, [2]int64{3, 3}))
	if resolved(r) {
		t.Fatal("resolved with bytes [100,150) unacknowledged")
	}
	tr.RecordEvent(ack([2]int64{2, 2}))
	if !resolved(r) || r.Err() != nil {
		t.Fatalf("not delivered after every byte and the FIN were acknowledged: %v", r.Err())
	}
	if len(tr.pending) != 0 || len(tr.streams) != 0 {
		t.Fatalf("state kept after resolution: %d packets, %d streams", len(tr.pending), len(tr.streams))
	}
}

func TestReceiptLostPacketIsRetransmitted(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(8)
	tr.finish(r, 10)
	tr.RecordEvent(sent(5, &qlog.StreamFrame{StreamID: 8, Offset: 0, Length: 10, Fin: true}))
	tr.RecordEvent(qlog.PacketLost{Header: qlog.PacketHeader{PacketType: qlog.PacketType1RTT, PacketNumber: 5}})
	tr.RecordEvent(ack([2]int64{5, 5})) // a late ACK of the lost packet is not trusted: it is forgotten
	if resolved(r) {
		t.Fatal("resolved from a packet declared lost")
	}
	tr.RecordEvent(sent(6, &qlog.StreamFrame{StreamID: 8, Offset: 0, Length: 6}, &qlog.StreamFrame{StreamID: 8, Offset: 6, Length: 4, Fin: true}))
	tr.RecordEvent(ack([2]int64{6, 6}))
	if !resolved(r) || r.Err() != nil {
		t.Fatalf("retransmission acknowledged, receipt %v", r.Err())
	}
}

func TestReceiptStopSendingIsARefusal(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(12)
	tr.finish(r, 10)
	tr.RecordEvent(qlog.PacketReceived{Header: qlog.PacketHeader{PacketType: qlog.PacketType1RTT},
		Frames: []qlog.Frame{{Frame: &qlog.StopSendingFrame{StreamID: 12, ErrorCode: 7}}}})
	if !errors.Is(r.Err(), errs.ErrRejected) {
		t.Fatalf("receipt %v, want Rejected", r.Err())
	}
}

func TestReceiptIgnoresUnwatchedStreamsAndOtherSpaces(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(0)
	tr.finish(r, 5)
	hs := sent(1, &qlog.StreamFrame{StreamID: 0, Offset: 0, Length: 5, Fin: true})
	hs.Header.PacketType = qlog.PacketTypeHandshake
	tr.RecordEvent(hs)
	tr.RecordEvent(sent(2, &qlog.StreamFrame{StreamID: 99, Offset: 0, Length: 5, Fin: true}))
	tr.RecordEvent(ack([2]int64{0, 10}))
	if resolved(r) {
		t.Fatal("resolved from frames that were not this stream's 1-RTT data")
	}
	if len(tr.pending) != 0 {
		t.Fatalf("recorded %d packets of unwatched streams", len(tr.pending))
	}
}

func TestReceiptConnectionLossResolvesEverything(t *testing.T) {
	tr := newReceiptTracker(true)
	r := tr.watch(0)
	lost := errs.New(errs.KindConnectionLost, "gone")
	tr.fail(lost)
	if !errors.Is(r.Err(), errs.ErrConnectionLost) {
		t.Fatalf("receipt %v", r.Err())
	}
	if late := tr.watch(4); !errors.Is(late.Err(), errs.ErrConnectionLost) {
		t.Fatalf("watch after loss: %v", late.Err())
	}
}

func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranges [][2]int64
		want   intervals
		covers int64 // the largest size covered from 0; -1 for none
	}{
		{"out of order, merged into one", [][2]int64{{10, 20}, {30, 40}, {0, 5}, {5, 10}, {20, 30}, {15, 35}},
			intervals{{0, 40}}, 40},
		{"in order, touching and overlapping the last", [][2]int64{{0, 10}, {10, 20}, {15, 25}, {30, 40}, {35, 50}, {32, 45}},
			intervals{{0, 25}, {30, 50}}, 25},
		{"a gap before the first", [][2]int64{{5, 10}, {12, 14}}, intervals{{5, 10}, {12, 14}}, -1},
		{"empty ranges ignored", [][2]int64{{3, 3}, {0, 2}}, intervals{{0, 2}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var iv intervals
			for _, r := range tc.ranges {
				iv.add(r[0], r[1])
			}
			if !slices.Equal(iv, tc.want) {
				t.Fatalf("merged %v, want %v", iv, tc.want)
			}
			if tc.covers >= 0 && (!iv.covers(tc.covers) || iv.covers(tc.covers+1)) {
				t.Fatalf("%v covers the wrong size, want exactly %d", iv, tc.covers)
			}
			if tc.covers < 0 && iv.covers(1) {
				t.Fatalf("%v covers a size though it does not start at 0", iv)
			}
		})
	}
}

// TestReceiptWaitsForThePeersAcknowledgement holds every packet from server
// to client: the server application has read the whole payload and its FIN,
// yet the receipt must not resolve until the server's ACKs get through.
func TestReceiptWaitsForThePeersAcknowledgement(t *testing.T) {
	s := startServer(t, NewConfig())
	proxy, err := udpproxy.New(s.l.Addr(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	c, _ := dialServer(t, s, proxy.Addr(), NewConfig())

	proxy.Hold(udpproxy.ToClient)
	h := wire.Data{Endpoint: wire.Some("/t")}
	out, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("receipt"))
	r, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	in := <-s.h.data
	if got, err := io.ReadAll(in); err != nil || string(got) != "receipt" {
		t.Fatalf("server read %q, %v", got, err)
	}
	if resolved(r) {
		t.Fatal("the receipt resolved while every acknowledgement was held back")
	}
	proxy.Release(udpproxy.ToClient)
	select {
	case <-r.Done():
		if r.Err() != nil {
			t.Fatalf("receipt: %v", r.Err())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the receipt never resolved after the acknowledgements were released")
	}
}

// TestReceiptUnderLoss: 3% loss each way with reordering; a 4 MiB transfer
// and 50 small ones all arrive intact and every receipt resolves.
func TestReceiptUnderLoss(t *testing.T) {
	s := startServer(t, NewConfig())
	proxy, err := udpproxy.New(s.l.Addr(), 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	c, _ := dialServer(t, s, proxy.Addr(), NewConfig())
	lossy := udpproxy.Policy{DropRate: 0.03, Jitter: 2 * time.Millisecond}
	proxy.SetPolicy(udpproxy.ToServer, lossy)
	proxy.SetPolicy(udpproxy.ToClient, lossy)

	big := make([]byte, 4<<20)
	_, _ = rand.Read(big)
	payloads := [][]byte{big}
	for i := range 50 {
		payloads = append(payloads, []byte("small transfer "+itoa(i)))
	}
	received := make(chan []byte, len(payloads))
	go func() {
		for range payloads {
			in := <-s.h.data
			b, err := io.ReadAll(in)
			if err != nil {
				b = nil
			}
			received <- b
		}
	}()
	var receipts []*Receipt
	h := wire.Data{Endpoint: wire.Some("/t")}
	for _, p := range payloads {
		out, err := c.OpenUni(testContext(t), &h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(p); err != nil {
			t.Fatal(err)
		}
		r, err := out.Finish()
		if err != nil {
			t.Fatal(err)
		}
		receipts = append(receipts, r)
	}
	for i, r := range receipts {
		select {
		case <-r.Done():
			if r.Err() != nil {
				t.Fatalf("receipt %d: %v", i, r.Err())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("receipt %d never resolved under loss", i)
		}
	}
	var gotBig bool
	for range payloads {
		b := <-received
		if len(b) == len(big) {
			gotBig = bytes.Equal(b, big)
		}
	}
	if !gotBig {
		t.Fatal("the 4 MiB payload did not arrive intact")
	}
	if proxy.Dropped(udpproxy.ToServer) == 0 || proxy.Dropped(udpproxy.ToClient) == 0 {
		t.Fatal("the proxy dropped nothing: the test did not exercise loss")
	}
}
