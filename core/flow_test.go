package weida_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	weida "github.com/weida-go/weida/core"
)

var datagramsOn = weida.Config{Datagrams: true}

// The flow tests run over every transport (SURFACE.md §4.2 `transports`):
// on a local one the FLOW stream carries the datagrams itself.

// flowServe binds an acceptor at /f under cfg on tr.
func flowServe(t *testing.T, tr testTransport, cfg weida.Config) (*weida.Binding, *weida.Acceptor) {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := tr.bind(t, rt)
	a, err := rt.Listener().Acceptor("/f")
	if err != nil {
		t.Fatal(err)
	}
	return b, a
}

// flowPeer connects a Peer under cfg to url.
func flowPeer(t *testing.T, cfg weida.Config, url string) *weida.Peer {
	t.Helper()
	p := runtimeWith(t, cfg).Peer(weida.TrustByAddress())
	if err := p.Connect(ctxFor(t), url); err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	return p
}

// acceptFlow takes the next item at a and requires it to be a flow.
func acceptFlow(t *testing.T, a *weida.Acceptor) *weida.IncomingFlow {
	t.Helper()
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := in.(*weida.IncomingFlow)
	if !ok {
		t.Fatalf("accepted %T, want a flow", in)
	}
	return f
}

func TestFlowDeliversDatagramsToAnAcceptor(t *testing.T) {
	forEachTransport(t, testFlowDelivers)
}

func testFlowDelivers(t *testing.T, tr testTransport) {
	b, a := flowServe(t, tr, datagramsOn)
	p := flowPeer(t, datagramsOn, b.URL("/f"))
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{ContentType: "audio/opus", Topic: "room.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Datagrams sent before the acceptor took the flow wait in its ring
	// (or, having overtaken the FLOW header, in the connection's early ring).
	for _, msg := range []string{"one", "two", "three"} {
		if err := f.Send([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	in := acceptFlow(t, a)
	if ct, _ := in.ContentType(); ct != "audio/opus" || in.Endpoint() != "/f" {
		t.Fatalf("flow meta: content type %q endpoint %q", ct, in.Endpoint())
	}
	if topic, ok := in.Topic(); !ok || topic != "room.1" {
		t.Fatalf("topic %q %v", topic, ok)
	}
	for _, want := range []string{"one", "two", "three"} {
		got, err := in.Recv(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Recv(ctxFor(t)); err != io.EOF {
		t.Fatalf("after the sender closed: %v, want io.EOF", err)
	}
	if s := f.Stats(); s.Sent != 3 || s.Dropped != 0 || s.NotLive != 0 {
		t.Fatalf("sender stats %+v", s)
	}
	if s := in.Stats(); s.Received != 3 || s.Dropped != 0 {
		t.Fatalf("receiver stats %+v", s)
	}
}

// TestFlowRefusals: a refusal ends the sender's flow with its reason. A
// unix reader refuses by closing its socket (no code on the wire, §12), so
// there the sender learns Rejected.
func TestFlowRefusals(t *testing.T) {
	forEachTransport(t, testFlowRefusals)
}

func testFlowRefusals(t *testing.T, tr testTransport) {
	cases := []struct {
		name string
		path string
		act  func(*weida.IncomingFlow) // what the acceptor does, nil for no acceptor
		want weida.ErrorKind
	}{
		{"unknown path", "/nobody", nil, weida.KindUnknownEndpoint},
		{"refused", "/f", func(f *weida.IncomingFlow) { f.Refuse() }, weida.KindRejected},
		{"released", "/f", func(f *weida.IncomingFlow) { f.Close() }, weida.KindCanceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, a := flowServe(t, tr, datagramsOn)
			p := flowPeer(t, datagramsOn, b.URL(tc.path))
			f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
			if err != nil {
				t.Fatalf("open returns before any refusal: %v", err)
			}
			defer f.Close()
			if tc.act != nil {
				tc.act(acceptFlow(t, a))
			}
			want := tc.want
			if tr.name == "unix" {
				want = weida.KindRejected // the reader closed its socket: no code
			}
			select {
			case <-f.Done():
			case <-ctxFor(t).Done():
				t.Fatal("the flow never learned of its end")
			}
			if err := f.Send([]byte("x")); weida.KindOf(err) != want {
				t.Fatalf("send after the end: %v, want %s", err, want)
			}
		})
	}
}

func TestFlowNeedsDatagramsOnBothEnds(t *testing.T) {
	forEachTransport(t, testFlowNeedsDatagramsOnBothEnds)
}

func testFlowNeedsDatagramsOnBothEnds(t *testing.T, tr testTransport) {
	cases := []struct {
		name           string
		server, client weida.Config
	}{
		{"server off", weida.Config{}, datagramsOn},
		{"client off", datagramsOn, weida.Config{}},
		{"both off", weida.Config{}, weida.Config{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, a := flowServe(t, tr, tc.server)
			p := flowPeer(t, tc.client, b.URL("/f"))
			_, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
			if !errors.Is(err, weida.ErrDatagramsUnavailable) {
				t.Fatalf("open: %v, want DatagramsUnavailable", err)
			}
			// Never replaced by a stream: the connection still serves streams,
			// and nothing reached the acceptor before this transfer.
			out, err := p.Open(ctxFor(t), weida.TransferMeta{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Write([]byte("stream")); err != nil {
				t.Fatal(err)
			}
			if _, err := out.Finish(); err != nil {
				t.Fatal(err)
			}
			in, err := a.Accept(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := in.(*weida.IncomingTransfer); !ok {
				t.Fatalf("first item at the acceptor is %T, want the stream", in)
			}
		})
	}
}

// TestFlowOversizeIsTooLargeWithTheMaximum: over QUIC the maximum follows
// the path; locally it is LOCAL_MAX_DATAGRAM, 1200 bytes.
func TestFlowOversizeIsTooLargeWithTheMaximum(t *testing.T) {
	forEachTransport(t, testFlowOversize)
}

func testFlowOversize(t *testing.T, tr testTransport) {
	b, _ := flowServe(t, tr, datagramsOn)
	p := flowPeer(t, datagramsOn, b.URL("/f"))
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	limit := f.MaxPayload()
	if tr.name != "quic" && limit != weida.LocalMaxDatagram {
		t.Fatalf("max payload %d on %s, want LOCAL_MAX_DATAGRAM %d", limit, tr.name, weida.LocalMaxDatagram)
	}
	if limit < 1000 || limit > 1500 {
		t.Fatalf("max payload %d: a QUIC packet on loopback carries about 1.2-1.45 kB", limit)
	}
	err = f.Send(make([]byte, 64<<10))
	if !errors.Is(err, weida.ErrTooLarge) {
		t.Fatalf("oversize send: %v, want TooLarge", err)
	}
	if got, ok := weida.TooLargeMax(err); !ok || got < limit || (tr.name != "quic" && got != limit) {
		t.Fatalf("TooLarge carries max %d (%v), want at least %d", got, ok, limit)
	}
	if err := f.Send(make([]byte, limit)); err != nil {
		t.Fatalf("a payload of exactly the maximum: %v", err)
	}
}

func TestFlowSlowReaderLosesTheOldest(t *testing.T) {
	forEachTransport(t, testFlowSlowReader)
}

func testFlowSlowReader(t *testing.T, tr testTransport) {
	b, a := flowServe(t, tr, datagramsOn)
	p := flowPeer(t, datagramsOn, b.URL("/f"))
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := acceptFlow(t, a)
	const sent, size = 40, 1000 // 40 kB against a 16 KiB ring
	for i := range sent {
		payload := make([]byte, size)
		binary.BigEndian.PutUint32(payload, uint32(i))
		if err := f.Send(payload); err != nil {
			t.Fatal(err)
		}
	}
	pubsubAwait(t, "every datagram to reach the ring", func() bool { return in.Stats().Received == sent })
	var got []uint32
	for {
		b, ok := tryRecv(t, in)
		if !ok {
			break
		}
		got = append(got, binary.BigEndian.Uint32(b))
	}
	stats := in.Stats()
	if len(got) == 0 || len(got) >= sent || uint64(len(got))+stats.Dropped != sent {
		t.Fatalf("read %d, dropped %d of %d", len(got), stats.Dropped, sent)
	}
	for i, n := range got { // the newest survive, in order
		if want := uint32(sent - len(got) + i); n != want {
			t.Fatalf("kept %v, want the last %d in order", got, len(got))
		}
	}
}

// tryRecv reads one queued datagram without waiting for more: a Recv under
// an already-ended context returns queued datagrams first.
func tryRecv(t *testing.T, in *weida.IncomingFlow) ([]byte, bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := in.Recv(ctx)
	if err != nil {
		return nil, false
	}
	return b, true
}

func TestFlowSurvivesARedial(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	first := flowServeAt(t, "127.0.0.1:0", id)
	p := runtimeWith(t, datagramsOn).Peer(weida.TrustByAddress(), fastRedial())
	events := p.Events()
	if err := p.Connect(ctxFor(t), first.url); err != nil {
		t.Fatal(err)
	}
	f, err := p.OpenFlow(ctxFor(t), weida.FlowMeta{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	expectDatagram(t, acceptFlow(t, first.a), f, "before")

	first.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)
	if err := f.Send([]byte("while down")); err != nil {
		t.Fatalf("a send while not live is dropped, not failed: %v", err)
	}
	if f.Stats().NotLive == 0 {
		t.Fatal("the send while down was not counted NotLive")
	}
	second := flowServeAt(t, first.addr, id)
	nextEvent(t, events, weida.EventConnected)
	in := acceptFlow(t, second.a)
	// The flow is re-registered just after the connection came back; a
	// send before that is (rightly) dropped as NotLive.
	pubsubAwait(t, "the flow to be re-registered", func() bool { return f.MaxPayload() > 0 })
	expectDatagram(t, in, f, "after")
}

type flowServer struct {
	rt   *weida.Runtime
	a    *weida.Acceptor
	addr string
	url  string
}

func flowServeAt(t *testing.T, addr string, id *weida.Identity) *flowServer {
	t.Helper()
	rt := runtimeWith(t, datagramsOn)
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	a, err := rt.Listener().Acceptor("/f")
	if err != nil {
		t.Fatal(err)
	}
	return &flowServer{rt: rt, a: a, addr: b.LocalAddr(), url: b.URL("/f")}
}

// expectDatagram sends msg on f and requires in to receive it.
func expectDatagram(t *testing.T, in *weida.IncomingFlow, f *weida.Flow, msg string) {
	t.Helper()
	if err := f.Send([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	got, err := in.Recv(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(msg)) {
		t.Fatalf("got %q, want %q", got, msg)
	}
}
