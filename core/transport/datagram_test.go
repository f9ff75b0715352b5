package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// flowRecorder is a recorder that also takes flows.
type flowRecorder struct {
	*recorder
	flows chan *InFlow
}

func (r *flowRecorder) Flow(_ *Conn, f *InFlow) { r.flows <- f }

// startFlowServer is a listener whose handler takes flows, with datagrams
// on when on is set; tune, when given, adjusts its Config.
func startFlowServer(t *testing.T, on bool, tune ...func(*Config)) (*server, *flowRecorder) {
	t.Helper()
	cfg := NewConfig()
	for _, f := range tune {
		f(&cfg)
	}
	if on {
		cfg.DatagramReceiveBytes = DefaultDatagramReceiveBytes
	}
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	tlsConf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	h := &flowRecorder{recorder: newRecorder(), flows: make(chan *InFlow, MaxFlows+1)}
	l, err := Listen("127.0.0.1:0", tlsConf, cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	return &server{l: l, id: id, h: h.recorder}, h
}

// waitFor polls cond, bounded: datagrams announce their arrival to nobody.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// rawFlowPeer dials s with QUIC datagrams on and sends a HELLO listing
// capability 1, so the test can put FLOW frames and datagrams on the wire
// in any order.
func rawFlowPeer(t *testing.T, s *server) *quic.Conn {
	t.Helper()
	tlsConf, _, err := identity.ClientConfig(s.address(s.l.Addr(), "/t"), identity.TrustByAddress(), nil, wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	qc, err := quic.DialAddr(testContext(t), s.l.Addr().String(), tlsConf, &quic.Config{EnableDatagrams: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = qc.CloseWithError(0, "") })
	h := wire.DefaultHello()
	h.Capabilities = []uint64{wire.CapabilityDatagram}
	rawUni(t, qc, wire.AppendFrame(nil, wire.KindHello, &h))
	return qc
}

// rawFlow opens a FLOW stream for id and leaves it open.
func rawFlow(t *testing.T, qc *quic.Conn, id uint64, trailer ...byte) *quic.SendStream {
	t.Helper()
	s, err := qc.OpenUniStream()
	if err != nil {
		t.Fatal(err)
	}
	f := wire.Flow{Endpoint: "/t", Flow: id}
	if _, err := s.Write(append(wire.AppendFrame(nil, wire.KindFlow, &f), trailer...)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDatagramsOvertakingTheirFlowAreAdopted(t *testing.T) {
	srv, h := startFlowServer(t, true)
	qc := rawFlowPeer(t, srv)
	// The HELLO must be processed before datagrams count: a first FLOW
	// stream (flow 1) proves it, and starts the connection's reader.
	rawFlow(t, qc, 1)
	<-h.flows
	for _, msg := range []string{"a", "b", "c"} {
		if err := qc.SendDatagram(wire.AppendDatagram(nil, 7, []byte(msg))); err != nil {
			t.Fatal(err)
		}
	}
	if err := qc.SendDatagram([]byte{0x40}); err != nil { // truncated flow id: dropped
		t.Fatal(err)
	}
	// Datagrams hold no ordering promise with streams: wait until the
	// early ring holds the three before the FLOW claims them.
	d := srvConnDatagrams(t, srv)
	waitFor(t, "three early datagrams", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.early) == 3
	})
	rawFlow(t, qc, 7)
	f := <-h.flows
	for _, want := range []string{"a", "b", "c"} {
		got, err := f.Recv(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func TestFlowViolations(t *testing.T) {
	cases := []struct {
		name string
		on   bool
		act  func(t *testing.T, qc *quic.Conn, h *flowRecorder)
	}{
		{"flow without agreed datagrams", false, func(t *testing.T, qc *quic.Conn, _ *flowRecorder) {
			rawFlow(t, qc, 1)
		}},
		{"second FLOW with a live id", true, func(t *testing.T, qc *quic.Conn, h *flowRecorder) {
			rawFlow(t, qc, 3)
			<-h.flows
			rawFlow(t, qc, 3)
		}},
		{"bytes after the FLOW header", true, func(t *testing.T, qc *quic.Conn, h *flowRecorder) {
			rawFlow(t, qc, 4, 0x00)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, h := startFlowServer(t, tc.on)
			qc := rawFlowPeer(t, srv)
			tc.act(t, qc, h)
			if code := closeCode(t, qc); code != wire.CodeProtocolViolation {
				t.Fatalf("closed with %s, want PROTOCOL_VIOLATION", code)
			}
		})
	}
}

func TestFlowsBeyondMaxFlowsAreRefused(t *testing.T) {
	srv, h := startFlowServer(t, true)
	qc := rawFlowPeer(t, srv)
	for id := range uint64(MaxFlows) {
		rawFlow(t, qc, id)
		<-h.flows
	}
	extra := rawFlow(t, qc, MaxFlows)
	<-extra.Context().Done()
	var se *quic.StreamError
	if err := context.Cause(extra.Context()); !errors.As(err, &se) || wire.AppCode(se.ErrorCode) != wire.CodeLimitExceeded {
		t.Fatalf("flow %d ended with %v, want STOP_SENDING(LIMIT_EXCEEDED)", MaxFlows, err)
	}
}

// OpenFlowNow never waits for the peer's stream credit: with it spent it
// fails LimitExceeded at once, and the connection goes on.
func TestOpenFlowNowWithoutCreditIsLimitExceeded(t *testing.T) {
	const credit = 4
	srv, h := startFlowServer(t, true, func(c *Config) { c.Limits.MaxConcurrentUniStreams = credit })
	cfg := NewConfig()
	cfg.DatagramReceiveBytes = DefaultDatagramReceiveBytes
	c, _ := dialServer(t, srv, srv.l.Addr(), cfg)
	opened := 0
	for ; ; opened++ {
		f, err := c.OpenFlowNow(wire.Flow{Endpoint: "/t", Flow: uint64(opened)})
		if err != nil {
			if !errors.Is(err, errs.ErrLimitExceeded) {
				t.Fatalf("flow %d: %v, want LimitExceeded", opened, err)
			}
			break
		}
		t.Cleanup(f.Close)
		<-h.flows // the peer holds it: its credit stays spent
		if opened == credit {
			t.Fatalf("%d flows opened on a credit of %d", opened+1, credit)
		}
	}
	if opened == 0 {
		t.Fatal("no flow opened at all")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the connection ended: %v", err)
	}
}

// srvConnDatagrams is the datagram state of the server's only connection.
func srvConnDatagrams(t *testing.T, s *server) *datagrams {
	t.Helper()
	conns := s.l.Conns()
	if len(conns) != 1 {
		t.Fatalf("%d server connections, want 1", len(conns))
	}
	return conns[0].datagrams()
}

func TestDatagramSendQueueDropsTheOldest(t *testing.T) {
	cfg := NewConfig()
	cfg.DatagramReceiveBytes = DefaultDatagramReceiveBytes
	srv := startServer(t, cfg)
	c, _ := dialServer(t, srv, srv.l.Addr(), cfg)
	d := c.datagrams()
	d.mu.Lock()
	d.sending = true // hold the sender back: the queue only fills
	d.mu.Unlock()
	f := &OutFlow{c: c, id: 9}
	const n, size = 100, 1000
	for i := range n {
		if err := d.send(f, []byte(strings.Repeat(string(rune('0'+i%10)), size))); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	kept := len(d.sendQ)
	if d.sendBytes > datagramSendBytes || kept+int(f.Dropped()) != n || f.Sent() != n {
		t.Fatalf("kept %d (%d bytes), dropped %d, sent %d of %d", kept, d.sendBytes, f.Dropped(), f.Sent(), n)
	}
	if want := (datagramSendBytes / (size + 1 + datagramEntryCost)); kept != want {
		t.Fatalf("kept %d datagrams, want the %d newest that fit 64 KiB", kept, want)
	}
	if _, payload, _ := wire.ParseDatagram(d.sendQ[kept-1].b); payload[0] != byte('0'+(n-1)%10) {
		t.Fatal("the newest datagram was not kept last")
	}
}
