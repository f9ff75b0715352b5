package weida_test

import (
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

func TestRadioUplinkSegmentsAreNumberedPerTopic(t *testing.T) {
	_, b, a := serve(t, "/up")
	p := connect(t, b.URL("/up"))
	// One at a time: a newer segment overtaking an older one on its topic
	// would make the older one stale at the acceptor's dispatcher.
	for _, want := range []struct {
		topic  string
		number uint64
	}{{"cam", 0}, {"cam", 1}, {"mic", 0}} {
		s, err := p.Segment(ctxFor(t), want.topic, weida.SegmentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.Write([]byte(want.topic)); n != 1 || err != nil {
			t.Fatalf("write: %d, %v", n, err)
		}
		if alive, err := s.Finish(); alive != 1 || err != nil {
			t.Fatalf("finish: %d alive, %v", alive, err)
		}
		in, err := a.Accept(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		tr := in.(*weida.IncomingTransfer)
		if _, err := tr.Collect(10); err != nil {
			t.Fatal(err)
		}
		number, ok := tr.Meta().Segment()
		topic, _ := tr.Meta().Topic()
		if !ok || topic != want.topic || number != want.number {
			t.Fatalf("got segment %d (%v) on %q, want %d on %q", number, ok, topic, want.number, want.topic)
		}
	}
}

func TestRadioUplinkSupersedesItsUnfinishedPredecessor(t *testing.T) {
	_, b, a := serve(t, "/up")
	p := connect(t, b.URL("/up"))
	first, err := p.Segment(ctxFor(t), "cam", weida.SegmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := first.Write([]byte("unfinished")); n != 1 {
		t.Fatal("the first segment lost its copy")
	}
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Segment(ctxFor(t), "cam", weida.SegmentOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.(*weida.IncomingTransfer).Collect(100); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("the superseded segment read as %v, want Canceled", err)
	}
	if drops := p.SegmentDrops(); len(drops) != 1 || drops[0].Superseded != 1 {
		t.Fatalf("peer segment drops %+v, want one superseded", drops)
	}
}

// An acceptor's path gets segments from a Peer's uplink; the dispatcher
// refuses stale ones before the acceptor sees them.
func TestRadioUplinkStaleSegmentNeverReachesAnAcceptor(t *testing.T) {
	rt := runtimeWith(t, weida.Config{Limits: stalledLimits})
	b := bindLoopback(t, rt)
	a, err := rt.Listener().Acceptor("/up")
	if err != nil {
		t.Fatal(err)
	}
	addr, err := weida.ParseAddress(b.URL("/up"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.Dial(ctxFor(t), addr, weida.TrustByAddress(), nil, transport.NewConfig(), pubsubSilentHandler{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	if err := rawSegmentTo(t, c, "/up", "cam", 5, 0, []byte("five")); err != nil {
		t.Fatal(err)
	}
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := in.(*weida.IncomingTransfer).Meta().Segment(); n != 5 {
		t.Fatalf("accepted segment %d, want 5", n)
	}
	// Larger than the acceptor's stream window, so the refusal reaches the
	// writer before its bytes could all be acknowledged.
	if err := rawSegmentTo(t, c, "/up", "cam", 3, 0, make([]byte, 256<<10)); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("an older segment: %v, want refused CANCELED", err)
	}
}
