package weida_test

import (
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// TestRadioDatagramSegments runs over every transport: locally a datagram
// segment rides its flow's stream as a record of at most 1200 bytes.
func TestRadioDatagramSegments(t *testing.T) { forEachTransport(t, testRadioDatagramSegments) }

func testRadioDatagramSegments(t *testing.T, tr testTransport) {
	r, b := radioServeOn(t, tr, datagramsOn)
	withDatagrams := radioDish(t, datagramsOn, r, b, "", weida.JoinOptions{}, 1)
	radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 2)

	if reached, err := r.Datagram("px", []byte("tick")); reached != 1 || err != nil {
		t.Fatalf("datagram reached %d (%v), want only the dish with datagrams", reached, err)
	}
	if d := dropsOf(r); d.NoDatagrams != 1 {
		t.Fatalf("drops %+v: the dish without datagrams must be counted, never served by a stream", d)
	}
	m, err := withDatagrams.Recv(ctxFor(t), 100)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != weida.DishDatagram || m.Topic != "px" || m.Segment != 0 || string(m.Payload) != "tick" {
		t.Fatalf("got %+v", m)
	}
	if reached, _ := r.Datagram("px", make([]byte, 4000)); reached != 0 {
		t.Fatalf("an oversize datagram reached %d dishes", reached)
	}
	if d := dropsOf(r); d.TooLarge != 1 || d.NoDatagrams != 2 {
		t.Fatalf("drops %+v, want one TooLarge and a second NoDatagrams", d)
	}
	// Datagram segments share the topic's numbers with stream segments.
	sendSegment(t, r, "px", 10, weida.SegmentOptions{})
	if m := recvSegment(t, withDatagrams, 10); m.Segment != 2 {
		t.Fatalf("stream segment after two datagrams numbered %d, want 2", m.Segment)
	}
	// The receive ceiling holds for datagrams too, and the dish goes on.
	if n, _ := r.Datagram("px", []byte("twelve bytes")); n != 1 {
		t.Fatal("the datagram reached no dish")
	}
	if _, err := withDatagrams.Recv(ctxFor(t), 4); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("a 12-byte datagram under a 4-byte ceiling: %v, want LimitExceeded", err)
	}
	if n, _ := r.Datagram("px", []byte("ok")); n != 1 {
		t.Fatal("the datagram reached no dish")
	}
	if m, err := withDatagrams.Recv(ctxFor(t), 4); err != nil || string(m.Payload) != "ok" || m.Segment != 4 {
		t.Fatalf("after a refused datagram: %+v, %v", m, err)
	}
}

func TestRadioAdmissionAndEviction(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	d := radioDish(t, weida.Config{}, r, b, "open", weida.JoinOptions{}, 1, weida.WithClientIdentity(id))
	if err := d.Join(ctxFor(t), "old", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "both joins", func() bool { return r.FilterCount() == 2 })

	refused := make(chan weida.Join, 4)
	r.SetAdmission(func(j weida.Join) bool {
		if j.Filter == "open" {
			return true
		}
		refused <- j
		return false
	})
	if got := r.FilterCount(); got != 1 {
		t.Fatalf("installing the policy kept %d joins, want the re-screen to withdraw %q", got, "old")
	}
	<-refused
	if err := d.Join(ctxFor(t), "secret", weida.JoinOptions{}); err != nil {
		t.Fatal(err)
	}
	j := <-refused // the policy saw it: it is decided, nothing was recorded
	if j.Filter != "secret" || !j.HasPeer || j.Peer != id.Fingerprint() {
		t.Fatalf("the policy saw %+v", j)
	}
	if got := r.FilterCount(); got != 1 {
		t.Fatalf("a refused join was recorded (%d joins)", got)
	}
	if n := r.Evict(id.Fingerprint(), "open"); n != 1 {
		t.Fatalf("evict withdrew %d joins, want 1", n)
	}
	if r.DishCount() != 0 || d.PeerCount() != 1 {
		t.Fatalf("after eviction: %d dishes at the radio, dish has %d peers (its connection stays)", r.DishCount(), d.PeerCount())
	}
}

func TestRadioRefusesInboundAndClosedUse(t *testing.T) {
	r, b := radioServe(t, datagramsOn)
	p := flowPeer(t, datagramsOn, b.URL("/radio"))
	if _, err := exchange(t, p, []byte("q")); !errors.Is(err, weida.ErrUnsupported) {
		t.Fatalf("an exchange with a radio path: %v, want Unsupported", err)
	}
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
	if err != nil {
		t.Fatal(err)
	}
	<-f.Done()
	if err := f.Send([]byte("x")); !errors.Is(err, weida.ErrUnsupported) {
		t.Fatalf("a flow to a radio path: %v, want Unsupported", err)
	}
	if _, err := r.Segment(string(make([]byte, 300)), weida.SegmentOptions{}); !errors.Is(err, weida.ErrProtocol) {
		t.Fatalf("a 300-byte topic: %v, want Protocol", err)
	}
	r.Close()
	if _, err := r.Segment("t", weida.SegmentOptions{}); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("segment on a closed radio: %v, want Canceled", err)
	}
}

func TestRadioEvictIgnoresAnonymousDishes(t *testing.T) {
	r, b := radioServe(t, weida.Config{})
	radioDish(t, weida.Config{}, r, b, "t", weida.JoinOptions{}, 1)
	id, _ := weida.GenerateIdentity()
	if n := r.Evict(id.Fingerprint(), "t"); n != 0 || r.DishCount() != 1 {
		t.Fatalf("evicting a key nobody proved withdrew %d joins", n)
	}
}
