package weida_test

import (
	"bytes"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

var (
	seqDetect     = guarantee.Set{Ordering: guarantee.PerProducerDetect}
	seqReassemble = guarantee.Set{Ordering: guarantee.PerProducerReassemble}
)

// seqPushAndAccept sends payload from p as one transfer and accepts it at a.
func seqPushAndAccept(t *testing.T, p *weida.Peer, a *weida.Acceptor, payload string) weida.IncomingMeta {
	t.Helper()
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte(payload)); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	meta, got := seqAccept(t, a)
	if got != payload {
		t.Fatalf("accepted %q, want %q", got, payload)
	}
	return meta
}

// seqAccept accepts one transfer at a and reads it whole.
func seqAccept(t *testing.T, a *weida.Acceptor) (weida.IncomingMeta, string) {
	t.Helper()
	item, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	in, ok := item.(*weida.IncomingTransfer)
	if !ok {
		t.Fatalf("accepted a %T, want a one-way transfer", item)
	}
	body, err := in.Collect(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	return in.Meta(), string(body)
}

// seqAcceptSequences accepts n transfers and returns their numbers in the
// order the application got them, failing on an unnumbered one or a gap.
func seqAcceptSequences(t *testing.T, a *weida.Acceptor, n int) []uint64 {
	t.Helper()
	got := make([]uint64, 0, n)
	for range n {
		meta, _ := seqAccept(t, a)
		s, ok := meta.Sequence()
		if !ok {
			t.Fatal("a transfer arrived unnumbered")
		}
		if missed, gap := meta.Missed(); gap {
			t.Fatalf("transfer %d reported %d missed, with nothing lost", s, missed)
		}
		got = append(got, s)
	}
	return got
}

// seqWantNoState checks that no live connection of rt keeps sequencing state.
func seqWantNoState(t *testing.T, side string, rt *weida.Runtime) {
	t.Helper()
	states := weida.SeqStates(rt)
	if len(states) == 0 {
		t.Fatalf("%s has no live connection to check", side)
	}
	for _, s := range states {
		if s.HasState {
			t.Fatalf("%s keeps sequencing state on a core connection: %+v", side, s)
		}
	}
}

func TestSeqCoreConnectionKeepsNoStateAndNumbersNothing(t *testing.T) {
	srv := guaranteeServe(t, weida.Config{})
	client := guaranteeRuntime(t, weida.Config{})
	p, err := guaranteePeer(t, client, srv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, ok := seqPushAndAccept(t, p, srv.a, strconv.Itoa(i)).Sequence(); ok {
			t.Fatal("a transfer on a core connection carries a number")
		}
	}
	seqWantNoState(t, "the receiving side", srv.rt)
	seqWantNoState(t, "the sending side", client)
}

// seqHeaderSink is a transport listener recording the DATA headers a weida
// sender writes, under the guarantee set set.
func seqHeaderSink(t *testing.T, set guarantee.Set) (string, <-chan *transport.InStream) {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	tlsConf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.NewConfig()
	cfg.Offered, cfg.Required = set.Wire(), set.Wire()
	h := &seqRecorder{data: make(chan *transport.InStream, 16)}
	l, err := transport.Listen("127.0.0.1:0", tlsConf, cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	addr := identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: id.Fingerprint(), HasFingerprint: true,
		Host: l.Addr().IP.String(), Port: uint16(l.Addr().Port), Path: "/h"}
	return addr.String(), h.data
}

// seqRecorder hands inbound transfers to the test; it takes nothing else.
type seqRecorder struct {
	pubsubSilentHandler
	data chan *transport.InStream
}

func (r *seqRecorder) Data(_ *transport.Conn, in *transport.InStream) { r.data <- in }

// TestSeqHeaderBytesPerMode measures the DATA header a weida sender writes
// in each mode, as received and re-encoded (the encoding is canonical, so
// the bytes are the ones that crossed the wire). Core writes no key 6.
func TestSeqHeaderBytesPerMode(t *testing.T) {
	producer := weida.Fingerprint{7}
	tests := []struct {
		name     string
		set      guarantee.Set
		meta     weida.TransferMeta
		extra    int // bytes over the core header, for numbers below 24
		numbered bool
	}{
		{"core", guarantee.Set{}, weida.TransferMeta{}, 0, false},
		{"sequence", seqDetect, weida.TransferMeta{}, 2, true},
		{"sequence and producer", seqDetect, weida.TransferMeta{Producer: producer}, 2 + 35, true},
	}
	var coreBytes int
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url, arrivals := seqHeaderSink(t, tc.set)
			rt, err := weida.NewRuntime(weida.Config{Guarantees: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rt.Shutdown)
			p := rt.Peer(weida.TrustByAddress())
			if err := p.Connect(ctxFor(t), url); err != nil {
				t.Fatal(err)
			}
			out, err := p.Open(ctxFor(t), tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Write(make([]byte, 64)); err != nil {
				t.Fatal(err)
			}
			if _, err := out.Finish(); err != nil {
				t.Fatal(err)
			}
			in := <-arrivals
			if in.Header.Sequence.Ok != tc.numbered || in.Header.Producer.Ok != (tc.meta.Producer != weida.Fingerprint{}) {
				t.Fatalf("header %+v: key 6 present %v, key 7 present %v", in.Header, in.Header.Sequence.Ok, in.Header.Producer.Ok)
			}
			frame := wire.AppendFrame(nil, wire.KindData, &in.Header)
			header := len(frame) - 3 // the preamble: magic, kind, a 1-byte header_len varint
			if tc.name == "core" {
				coreBytes = header
			}
			if header != coreBytes+tc.extra {
				t.Fatalf("%d header bytes, want core's %d + %d", header, coreBytes, tc.extra)
			}
			t.Logf("%s: DATA header %d bytes, frame head %d bytes (+%d over core)", tc.name, header, len(frame), header-coreBytes)
		})
	}
}

// seqReverseFinish opens n transfers from p (numbered 0..n-1 at Open),
// then writes and finishes them last first. How far that reorders what the
// receiver dispatches depends on timing (it accepts streams in id order),
// so the benchmarks measure it and the tests use seqHoldBackFirst.
func seqReverseFinish(tb testing.TB, p *weida.Peer, n int) {
	tb.Helper()
	outs := seqOpenAll(tb, p, n)
	for i := n - 1; i >= 0; i-- {
		seqFinish(tb, outs[i], i)
	}
}

// seqHoldBackFirst opens n transfers from p (numbered 0..n-1), sends all
// but the first, waits for arrived to say the receiver has them, and only
// then sends the first: a reordering the receiver is certain to see.
func seqHoldBackFirst(tb testing.TB, p *weida.Peer, n int, arrived func()) {
	tb.Helper()
	outs := seqOpenAll(tb, p, n)
	for i := n - 1; i >= 1; i-- {
		seqFinish(tb, outs[i], i)
	}
	arrived()
	seqFinish(tb, outs[0], 0)
}

func seqOpenAll(tb testing.TB, p *weida.Peer, n int) []*weida.OutgoingTransfer {
	tb.Helper()
	outs := make([]*weida.OutgoingTransfer, n)
	for i := range outs {
		out, err := p.Open(tb.Context(), weida.TransferMeta{})
		if err != nil {
			tb.Fatal(err)
		}
		outs[i] = out
	}
	return outs
}

// seqFinish writes transfer i's payload (its number) and finishes it.
func seqFinish(tb testing.TB, out *weida.OutgoingTransfer, i int) {
	tb.Helper()
	if _, err := out.Write([]byte(strconv.Itoa(i))); err != nil {
		tb.Fatal(err)
	}
	if _, err := out.Finish(); err != nil {
		tb.Fatal(err)
	}
}

// seqConcurrentPushes sends n transfers from n goroutines at once.
func seqConcurrentPushes(tb testing.TB, p *weida.Peer, n int) {
	tb.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			out, err := p.Open(tb.Context(), weida.TransferMeta{})
			if err == nil {
				_, err = out.Write([]byte("concurrent"))
			}
			if err == nil {
				_, err = out.Finish()
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

func TestSeqReorderReassembleDeliversInOrder(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		holdBack   bool // send the first last, once the receiver holds the rest
		concurrent bool // else: from n goroutines at once
	}{
		{"the first of 16 held back", 16, true, false},
		{"the first of 256 held back", 256, true, false},
		{"256 concurrent pushes", 256, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			srv := guaranteeServe(t, weida.Config{Guarantees: seqReassemble})
			client := guaranteeRuntime(t, weida.Config{Guarantees: seqReassemble})
			p, err := guaranteePeer(t, client, srv)
			if err != nil {
				t.Fatal(err)
			}
			if tc.holdBack {
				seqHoldBackFirst(t, p, tc.n, func() {
					pubsubAwait(t, "the receiver to hold every transfer but the first", func() bool {
						return weida.SeqStates(srv.rt)[0].Held == tc.n-1
					})
				})
			} else {
				seqConcurrentPushes(t, p, tc.n)
			}
			got := seqAcceptSequences(t, srv.a, tc.n)
			want := make([]uint64, tc.n)
			for i := range want {
				want[i] = uint64(i)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("delivered %v, want 0..%d in order", got, tc.n-1)
			}
			peak := weida.SeqStates(srv.rt)[0].PeakHeld
			if peak > guarantee.MaxReorderHold || tc.holdBack && peak != tc.n-1 {
				t.Fatalf("peak hold %d for %d transfers", peak, tc.n)
			}
			t.Logf("%s: peak hold %d of %d", tc.name, peak, tc.n)
			client.Shutdown()
			srv.rt.Shutdown()
			seqAwaitGoroutines(t, before)
		})
	}
}

// seqAwaitGoroutines waits until the goroutine count is back to before,
// after the runtimes shut down. Exiting goroutines cannot be waited on, so
// the count is polled, under a bound.
func seqAwaitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d before, %d after shutdown:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSeqReorderDetectDeliversAsArrived: under detect nothing waits. With
// the first transfer held back, the rest are delivered before it, and it
// comes last, below the position, with no gap; then from 256 goroutines at
// once, everything arrives once and no number is reported missed twice.
func TestSeqReorderDetectDeliversAsArrived(t *testing.T) {
	const n = 256
	srv := guaranteeServe(t, weida.Config{Guarantees: seqDetect})
	p, err := guaranteePeer(t, guaranteeRuntime(t, weida.Config{Guarantees: seqDetect}), srv)
	if err != nil {
		t.Fatal(err)
	}
	var missed uint64
	seen := make([]bool, 2*n) // the connection numbers both rounds: 0..2n-1
	accept := func() uint64 {
		meta, _ := seqAccept(t, srv.a)
		s, ok := meta.Sequence()
		if !ok || s >= 2*n || seen[s] {
			t.Fatalf("sequence %d, %v: unnumbered, out of range or twice", s, ok)
		}
		seen[s] = true
		m, _ := meta.Missed()
		missed += m
		return s
	}
	seqHoldBackFirst(t, p, n, func() {
		for range n - 1 {
			if accept() == 0 {
				t.Fatal("the transfer held back arrived first")
			}
		}
	})
	if s := accept(); s != 0 {
		t.Fatalf("last delivered %d, want the one held back", s)
	}
	// Late arrivals fill what an early one reported, never the reverse: more
	// than n-1 missed would count a number twice.
	if missed > n-1 {
		t.Fatalf("%d reported missed out of %d numbers", missed, n)
	}

	missed = 0
	seqConcurrentPushes(t, p, n)
	for range n {
		accept()
	}
	if missed > n-1 {
		t.Fatalf("%d reported missed out of %d concurrent numbers", missed, n)
	}
	if s := weida.SeqStates(srv.rt)[0]; s.Held != 0 || s.Scopes != 1 {
		t.Fatalf("detect state %+v: it must hold nothing and track one scope", s)
	}
}

// TestSeqProducerKeyIsItsOwnScope: a transfer sent for another producer
// (DATA key 7) is numbered in that producer's sequence, and the receiver
// sees the producer it names beside the peer it proved.
func TestSeqProducerKeyIsItsOwnScope(t *testing.T) {
	srv := guaranteeServe(t, weida.Config{Guarantees: seqDetect})
	p, err := guaranteePeer(t, guaranteeRuntime(t, weida.Config{Guarantees: seqDetect}), srv)
	if err != nil {
		t.Fatal(err)
	}
	relayed := weida.Fingerprint{0xAB}
	sends := []struct {
		producer weida.Fingerprint
		want     uint64
	}{{relayed, 0}, {weida.Fingerprint{}, 0}, {relayed, 1}, {weida.Fingerprint{}, 1}}
	for i, s := range sends {
		out, err := p.Open(ctxFor(t), weida.TransferMeta{Producer: s.producer})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = out.Write(bytes.Repeat([]byte{'p'}, i+1))
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		meta, _ := seqAccept(t, srv.a)
		n, _ := meta.Sequence()
		fp, named := meta.Producer()
		if n != s.want || named != (s.producer != weida.Fingerprint{}) || named && fp != relayed {
			t.Fatalf("send %d: sequence %d, producer %v (%v); want %d", i, n, fp, named, s.want)
		}
		if missed, gap := meta.Missed(); gap {
			t.Fatalf("send %d: %d missed across two producers' sequences", i, missed)
		}
	}
}
