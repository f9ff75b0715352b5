package hostile

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/resources"
	"github.com/weida-go/weida/internal/scale"
)

// floodLimits are the victim's stream budgets in a flood: small in the
// test command, the spec's defaults (2048 uni, 1024 bidi) in the heavy one.
func floodLimits() weida.Limits {
	return weida.Limits{
		MaxConcurrentUniStreams:  scale.Pick[int64](256, 2048),
		MaxConcurrentBidiStreams: scale.Pick[int64](128, 1024),
	}
}

// perStreamOverhead is what one open inbound stream may cost the victim
// beyond its header buffer: its goroutine's stack and quic-go's stream
// state (the raw attacker's side of the stream counts too: it lives in the
// same process). Measured at 5–6 KiB a stream over 3,072 streams; the
// bound leaves room.
const perStreamOverhead = 16 << 10

// perConnectionGoroutines bounds the goroutines one connection costs the
// process apart from its streams: quic-go's loops on both ends (the raw
// peer is in the same process) and weida's accept and watch loops.
const perConnectionGoroutines = 16

// floodBound is the most live memory one hostile connection may pin:
// every stream it may open holding a header at the limit (PROTOCOL.md §13:
// max_header_bytes × streams, 48 MiB at the defaults) plus per-stream
// overhead, plus the connection window of bytes received but not yet read.
func floodBound(l weida.Limits) int64 {
	streams := l.MaxConcurrentUniStreams + l.MaxConcurrentBidiStreams
	return streams*(wire.DefaultMaxHeaderBytes+perStreamOverhead) + 16<<20
}

// openUntilRefused opens streams with open until the peer's credit is
// spent (quic-go's StreamLimitReachedError), writing frame on each, and
// returns how many it opened.
func openUntilRefused(t *testing.T, open func() (io.Writer, error), frame []byte) int {
	t.Helper()
	for n := 0; ; n++ {
		s, err := open()
		var limit *quic.StreamLimitReachedError
		if errors.As(err, &limit) {
			return n
		}
		if err != nil {
			t.Fatalf("opening stream %d: %v", n, err)
		}
		if _, err := s.Write(frame); err != nil {
			t.Fatalf("writing stream %d: %v", n, err)
		}
	}
}

// atLimitFrame declares a DATA header of exactly max_header_bytes and
// sends all of it but the last byte: the victim allocates the header
// buffer (the limit allows it) and waits for the rest.
func atLimitFrame() []byte {
	preamble := []byte{wire.Magic, byte(wire.KindData), 0x80, 0x00, 0x40, 0x00} // header_len 16384
	return append(preamble, make([]byte, wire.DefaultMaxHeaderBytes-1)...)
}

// awaitLanded waits until the victim runs a goroutine for each of the
// flood's streams, that is until the attack has landed, and returns the
// growth seen. Streams arrive asynchronously, so the count is polled.
func awaitLanded(t *testing.T, base resources.Snapshot, streams int) int {
	t.Helper()
	deadline := time.Now().Add(settleWithin)
	for {
		g := base.GoroutineGrowth()
		if g >= streams {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d victim goroutines for %d flood streams", g, streams)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// floodVerdict checks one flood against the budget: the peer opened no
// more streams than the credit (give or take the HELLO stream, whose
// credit the victim returns), the victim's goroutines and live memory
// stayed within the bound while the flood held, and the bystander was
// served meanwhile.
func floodVerdict(t *testing.T, l weida.Limits, base resources.Snapshot, uni, bidi int, served func(*testing.T)) (peakGoroutines int) {
	t.Helper()
	if int64(uni) > l.MaxConcurrentUniStreams || int64(bidi) > l.MaxConcurrentBidiStreams {
		t.Fatalf("the peer opened %d uni and %d bidi streams past a credit of %d and %d",
			uni, bidi, l.MaxConcurrentUniStreams, l.MaxConcurrentBidiStreams)
	}
	if int64(uni) < l.MaxConcurrentUniStreams-1 || int64(bidi) < l.MaxConcurrentBidiStreams {
		t.Fatalf("the flood stopped early: %d uni and %d bidi streams of %d and %d", uni, bidi,
			l.MaxConcurrentUniStreams, l.MaxConcurrentBidiStreams)
	}
	goroutines := awaitLanded(t, base, uni+bidi)
	served(t)
	live := base.LiveGrowth()
	if bound := floodBound(l); live > bound {
		t.Fatalf("the flood pinned %s of live memory, bound %s", resources.MiB(live), resources.MiB(bound))
	}
	if goroutines > uni+bidi+perConnectionGoroutines {
		t.Fatalf("%d goroutines for %d streams on one connection", goroutines, uni+bidi)
	}
	t.Logf("figure: flood of %d uni + %d bidi streams with %d-byte headers: %d goroutines, %s live (bound %s)",
		uni, bidi, wire.DefaultMaxHeaderBytes, goroutines, resources.MiB(live), resources.MiB(floodBound(l)))
	return base.Goroutines + goroutines
}

// TestServerStreamFlood: a raw client opens every stream a weida listener
// grants, each with a header at the limit left one byte short. It cannot
// open more than the credit; the victim's memory and goroutines stay
// within the budget; other peers are served; all is released on close.
func TestServerStreamFlood(t *testing.T) {
	l := floodLimits()
	v := newVictim(t, weida.Config{Limits: l})
	peak := floodServer(t, v, l)
	v.settledAfter(t, peak)
}

// floodServer dials v, floods it and judges the flood. The raw peer lives
// in this process too, so its connection is only referenced inside this
// function: once it returns, what the attacker held is garbage and does not
// count against the victim's settled heap.
func floodServer(t *testing.T, v *victim, l weida.Limits) (peakGoroutines int) {
	t.Helper()
	c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustSend(t, c.Uni(rawpeer.Hello()))
	uni := openUntilRefused(t, func() (io.Writer, error) { return c.QC.OpenUniStream() }, atLimitFrame())
	bidi := openUntilRefused(t, func() (io.Writer, error) { return c.QC.OpenStream() }, atLimitFrame())
	return floodVerdict(t, l, v.base, uni, bidi, v.stillServes)
}

// TestClientStreamFlood is TestServerStreamFlood against a weida client:
// the hostile server floods the requester that dialled it.
func TestClientStreamFlood(t *testing.T) {
	l := floodLimits()
	cv := newClientVictimWith(t, weida.Config{Limits: l})
	peak := 0
	// A subtest, so the hostile server is gone before the victim is
	// checked for leftovers.
	t.Run("flood", func(t *testing.T) {
		conns := make(chan *rawpeer.Conn, 1)
		hs := startHostileServer(t, func(c *rawpeer.Conn) {
			if c.Uni(rawpeer.Hello()) == nil {
				conns <- c
			}
		})
		r := cv.rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
		defer r.Close()
		if err := r.Connect(ctxFor(t), hs.url("/x")); err != nil {
			t.Fatalf("connect: %v", err)
		}
		c := <-conns
		uni := openUntilRefused(t, func() (io.Writer, error) { return c.QC.OpenUniStream() }, atLimitFrame())
		bidi := openUntilRefused(t, func() (io.Writer, error) { return c.QC.OpenStream() }, atLimitFrame())
		peak = floodVerdict(t, l, cv.base, uni, bidi, cv.stillServes)
	})
	settle(t, cv.base, peak)
}

// TestParkedStreamFlood: before HELLO a raw client opens every uni stream
// it is granted, each holding only a DATA preamble. Parked streams hold at
// most their preamble (PROTOCOL.md §3.2); the hello timeout then closes
// the connection with NEGOTIATION_FAILED and releases them all.
func TestParkedStreamFlood(t *testing.T) {
	l := floodLimits()
	l.HelloTimeout = 2 * time.Second
	v := newVictim(t, weida.Config{Limits: l})
	c, err := rawpeer.Dial(ctxFor(t), v.url(echoPath), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	preamble := []byte{wire.Magic, byte(wire.KindData), 0x80, 0x00, 0x40, 0x00}
	uni := openUntilRefused(t, func() (io.Writer, error) { return c.QC.OpenUniStream() }, preamble)
	if int64(uni) != l.MaxConcurrentUniStreams {
		t.Fatalf("opened %d parked streams, want the credit of %d", uni, l.MaxConcurrentUniStreams)
	}
	peak := v.base.Goroutines + awaitLanded(t, v.base, uni)
	// Parked streams own a goroutine and a preamble each, never a header.
	if live, bound := v.base.LiveGrowth(), int64(uni)*perStreamOverhead; live > bound {
		t.Fatalf("%d parked streams pinned %s, bound %s", uni, resources.MiB(live), resources.MiB(bound))
	}
	code, err := c.ClosedWith(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if code != wire.CodeNegotiationFailed {
		t.Fatalf("closed with %s, want NEGOTIATION_FAILED", code)
	}
	v.stillServes(t)
	v.settledAfter(t, peak)
}
