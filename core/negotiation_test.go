package weida_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// guaranteeServer is a runtime with set, bound on loopback, with an
// acceptor at /g.
type guaranteeServer struct {
	rt *weida.Runtime
	b  *weida.Binding
	a  *weida.Acceptor
}

func guaranteeServe(t *testing.T, cfg weida.Config) *guaranteeServer {
	t.Helper()
	rt := guaranteeRuntime(t, cfg)
	b := bindLoopback(t, rt)
	a, err := rt.Listener().Acceptor("/g")
	if err != nil {
		t.Fatal(err)
	}
	return &guaranteeServer{rt: rt, b: b, a: a}
}

func (s *guaranteeServer) url() string { return s.b.URL("/g") }

// guaranteeRuntime is a runtime with cfg, shut down when the test ends.
func guaranteeRuntime(t *testing.T, cfg weida.Config) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatalf("runtime for %v: %v", cfg.Guarantees, err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

// guaranteePeer connects a Peer of rt to srv.
func guaranteePeer(t *testing.T, rt *weida.Runtime, srv *guaranteeServer) (*weida.Peer, error) {
	t.Helper()
	p := rt.Peer(weida.TrustByAddress())
	return p, p.Connect(ctxFor(t), srv.url())
}

// guaranteeWireDial dials srv from the transport, declaring sets no
// runtime of this build may be configured with: it stands in for a peer
// (a broker, a later build) that offers or requires more.
func guaranteeWireDial(t *testing.T, srv *guaranteeServer, offered, required wire.GuaranteeSet) error {
	t.Helper()
	addr, err := identity.ParseAddress(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.NewConfig()
	cfg.Offered, cfg.Required = offered, required
	c, err := transport.Dial(ctxFor(t), addr, identity.TrustByAddress(), nil, cfg, pubsubSilentHandler{})
	if err == nil {
		t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	}
	return err
}

// wireSet is the core set with change applied.
func wireSet(change func(*wire.GuaranteeSet)) wire.GuaranteeSet {
	g := wire.CoreGuarantees()
	change(&g)
	return g
}

// TestGuaranteeNegotiationOutcomes runs every outcome of PROTOCOL.md §9 once
// over real QUIC: a match, a superset, a shortfall in each dimension a peer
// can state, and a backpressure mismatch. A failure must reach both sides
// (the dialler's Connect, the listener's record), each naming the dimension
// and both levels.
func TestGuaranteeNegotiationOutcomes(t *testing.T) {
	detect := guarantee.Set{Ordering: guarantee.PerProducerDetect}
	reassemble := guarantee.Set{Ordering: guarantee.PerProducerReassemble}
	bounded := func(w time.Duration) guarantee.Set {
		return guarantee.Set{Deduplication: guarantee.DedupBounded, DedupWindow: w}
	}
	everything := guarantee.Set{Ordering: guarantee.PerProducerReassemble, Deduplication: guarantee.DedupBounded, DedupWindow: time.Second}
	tests := []struct {
		name   string
		server guarantee.Set
		client guarantee.Set // a weida runtime, unless wire is set
		wire   *[2]wire.GuaranteeSet
		// want is "" for success, else the dimension and the two levels the
		// errors must name.
		want []string
	}{
		{"core matches core", guarantee.Set{}, guarantee.Set{}, nil, nil},
		{"detect matches detect", detect, detect, nil, nil},
		{"reassemble and dedup match", everything, everything, nil, nil},
		{"a superset offer reaches a smaller requirement", detect, guarantee.Set{},
			&[2]wire.GuaranteeSet{everything.Wire(), wire.CoreGuarantees()}, nil},

		{"ordering: detect against core", guarantee.Set{}, detect, nil,
			[]string{"ordering", "0 (None)", "1 (PerProducer detect)"}},
		{"ordering: reassemble against detect", detect, reassemble, nil,
			[]string{"ordering", "1 (PerProducer detect)", "2 (PerProducer reassemble)"}},
		{"deduplication: bounded against core", guarantee.Set{}, bounded(time.Second), nil,
			[]string{"deduplication", "0 (None)", "1 (Bounded)"}},
		{"deduplication: a longer window than offered", bounded(time.Second), bounded(5 * time.Second), nil,
			[]string{"dedup_window_ms", "1000 ms", "5000 ms"}},
		{"delivery", guarantee.Set{}, guarantee.Set{},
			&[2]wire.GuaranteeSet{wireSet(func(g *wire.GuaranteeSet) { g.Delivery = 2 }), wireSet(func(g *wire.GuaranteeSet) { g.Delivery = 2 })},
			[]string{"delivery", "0 (BestEffort)", "2 (AtLeastOnce)"}},
		{"acknowledgement", guarantee.Set{}, guarantee.Set{},
			&[2]wire.GuaranteeSet{wireSet(func(g *wire.GuaranteeSet) { g.Acknowledgement = 2 }), wireSet(func(g *wire.GuaranteeSet) { g.Acknowledgement = 2 })},
			[]string{"acknowledgement", "1 (TransportReceipt)", "2 (Accepted)"}},
		{"backpressure mismatch", guarantee.Set{}, guarantee.Set{},
			&[2]wire.GuaranteeSet{wireSet(func(g *wire.GuaranteeSet) { g.Backpressure = 2 }), wireSet(func(g *wire.GuaranteeSet) { g.Backpressure = 2 })},
			[]string{"backpressure", "0 (Block)", "2 (Drop)"}},
		{"producer naming mismatch", guarantee.Set{}, guarantee.Set{},
			&[2]wire.GuaranteeSet{wireSet(func(g *wire.GuaranteeSet) { g.ProducerNaming = 1 }), wireSet(func(g *wire.GuaranteeSet) { g.ProducerNaming = 1 })},
			[]string{"producer_naming", "0 (fingerprint)", "1 (stable)"}},
		{"control isolation", guarantee.Set{}, guarantee.Set{},
			&[2]wire.GuaranteeSet{wireSet(func(g *wire.GuaranteeSet) { g.ControlIsolated = 1 }), wireSet(func(g *wire.GuaranteeSet) { g.ControlIsolated = 1 })},
			[]string{"control_isolated", "0 (no)", "1 (yes)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := guaranteeServe(t, weida.Config{Guarantees: tc.server})
			failed := srv.rt.Listener().NegotiationFailed()
			var err error
			if tc.wire != nil {
				err = guaranteeWireDial(t, srv, tc.wire[0], tc.wire[1])
			} else {
				_, err = guaranteePeer(t, guaranteeRuntime(t, weida.Config{Guarantees: tc.client}), srv)
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				if got, total := srv.rt.Listener().NegotiationFailures(); total != 0 {
					t.Fatalf("the listener recorded failures %v", got)
				}
				return
			}
			guaranteeWantNamed(t, "the dialler", err, tc.want)
			select {
			case <-failed:
			case <-ctxFor(t).Done():
				t.Fatal("the listener never recorded the failure")
			}
			got, total := srv.rt.Listener().NegotiationFailures()
			if total != 1 || len(got) != 1 {
				t.Fatalf("the listener recorded %d failures (%v), want 1", total, got)
			}
			if got[0].Remote == "" || got[0].HasPeer {
				t.Fatalf("failure from %q (peer %v), want the anonymous dialler's address", got[0].Remote, got[0].HasPeer)
			}
			guaranteeWantNamed(t, "the listener", got[0].Err, tc.want)
		})
	}
}

// guaranteeWantNamed checks err is Negotiation and names every one of want.
func guaranteeWantNamed(t *testing.T, side string, err error, want []string) {
	t.Helper()
	if !errors.Is(err, weida.ErrNegotiation) {
		t.Fatalf("%s: %v, want Negotiation", side, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: %q does not name %q", side, err, w)
		}
	}
}

// TestGuaranteeAgreedLevelsReachTheWire checks that the agreed set is what
// connections run: a transfer carries a number only where ordering or
// deduplication was agreed.
func TestGuaranteeAgreedLevelsReachTheWire(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      guarantee.Set
		numbered bool
	}{
		{"core", guarantee.Set{}, false},
		{"detect", guarantee.Set{Ordering: guarantee.PerProducerDetect}, true},
		{"dedup alone", guarantee.Set{Deduplication: guarantee.DedupBounded, DedupWindow: time.Minute}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := guaranteeServe(t, weida.Config{Guarantees: tc.set})
			p, err := guaranteePeer(t, guaranteeRuntime(t, weida.Config{Guarantees: tc.set}), srv)
			if err != nil {
				t.Fatal(err)
			}
			meta := seqPushAndAccept(t, p, srv.a, "x")
			if n, ok := meta.Sequence(); ok != tc.numbered || n != 0 {
				t.Fatalf("sequence %d, %v; want numbered %v from 0", n, ok, tc.numbered)
			}
		})
	}
}
