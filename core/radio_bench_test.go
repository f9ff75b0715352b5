package weida_test

import (
	"context"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// BenchmarkFlowSend is the cost of one 200-byte datagram (a voice frame)
// handed to a flow: Send never waits, so this is the whole sender cost.
func BenchmarkFlowSend(b *testing.B) {
	rt := runtimeWith(b, datagramsOn)
	bind := bindLoopback(b, rt)
	a, err := rt.Listener().Acceptor("/f")
	if err != nil {
		b.Fatal(err)
	}
	p := runtimeWith(b, datagramsOn).Peer(weida.TrustByAddress())
	ctx := context.Background()
	if err := p.Connect(ctx, bind.URL("/f")); err != nil {
		b.Fatal(err)
	}
	f, err := p.OpenFlow(ctx, weida.FlowMeta{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	in, err := a.Accept(ctx)
	if err != nil {
		b.Fatal(err)
	}
	go func() { // drain, so the receiver's ring is not the subject
		for {
			if _, err := in.(*weida.IncomingFlow).Recv(ctx); err != nil {
				return
			}
		}
	}()
	payload := make([]byte, 200)
	b.ReportAllocs()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if err := f.Send(payload); err != nil {
			b.Fatal(err)
		}
	}
	s := f.Stats()
	b.ReportMetric(float64(s.Dropped)/float64(max(s.Sent, 1)), "dropped/op")
}

// BenchmarkRadioSegment is one small segment (open, one 1 KiB chunk,
// finish) fanned out to one dish that keeps up.
func BenchmarkRadioSegment(b *testing.B) {
	rt := runtimeWith(b, weida.Config{})
	bind := bindLoopback(b, rt)
	r, err := bind.Radio("/radio")
	if err != nil {
		b.Fatal(err)
	}
	d := runtimeWith(b, weida.Config{}).Dish(weida.TrustByAddress())
	ctx := context.Background()
	if err := d.Connect(ctx, bind.URL("/radio")); err != nil {
		b.Fatal(err)
	}
	if err := d.Join(ctx, "", weida.JoinOptions{}); err != nil {
		b.Fatal(err)
	}
	for r.DishCount() == 0 { // the join has no reply: its effect is the only evidence
		time.Sleep(time.Millisecond)
	}
	chunk := make([]byte, 1<<10)
	b.ReportAllocs()
	for b.Loop() {
		s, err := r.Segment("t", weida.SegmentOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s.Write(chunk)
		s.Finish()
		if _, err := d.Recv(ctx, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}
