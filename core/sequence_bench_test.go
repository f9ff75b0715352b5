package weida_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/wire"
)

// The sequencing benchmarks measure what ordering costs a sender and a
// receiver on one loopback connection, against core: the message rate of
// 64 B pushes, the bytes per DATA header, and how far the reorder hold
// fills under 256 transfers in flight.

// seqBenchModes are the modes compared: core, a sequence number (detect),
// and a sequence number with a producer key (a relay sending for another).
var seqBenchModes = []struct {
	name  string
	set   guarantee.Set
	meta  weida.TransferMeta
	extra float64 // header bytes over core for a number below 24
}{
	{"core", guarantee.Set{}, weida.TransferMeta{}, 0},
	{"sequence", seqDetect, weida.TransferMeta{}, 2},
	{"sequence+producer", seqDetect, weida.TransferMeta{Producer: weida.Fingerprint{0x5e}}, 2 + 35},
}

// seqBenchPair is a server runtime with an acceptor at benchPath and a
// client runtime's peer connected to it, both with the same set.
type seqBenchPair struct {
	server, client *weida.Runtime
	a              *weida.Acceptor
	p              *weida.Peer
}

// openSeqBenchPair connects a pair; both runtimes shut down at the end of
// tb, or earlier with shutdown.
func openSeqBenchPair(tb testing.TB, set guarantee.Set) *seqBenchPair {
	tb.Helper()
	pair := &seqBenchPair{server: seqBenchRuntime(tb, set), client: seqBenchRuntime(tb, set)}
	var err error
	if pair.a, err = pair.server.Listener().Acceptor(benchPath); err != nil {
		tb.Fatal(err)
	}
	id, err := weida.GenerateIdentity()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := pair.server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		tb.Fatal(err)
	}
	pair.p = pair.client.Peer(weida.TrustByAddress())
	if err := pair.p.Connect(tb.Context(), b.URL(benchPath)); err != nil {
		tb.Fatal(err)
	}
	return pair
}

func seqBenchRuntime(tb testing.TB, set guarantee.Set) *weida.Runtime {
	rt, err := weida.NewRuntime(weida.Config{Guarantees: set})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(rt.Shutdown)
	return rt
}

func (pair *seqBenchPair) shutdown() {
	pair.client.Shutdown()
	pair.server.Shutdown()
}

// seqPush is the push subject of one mode: fire-and-forget 64 B messages
// with the mode's meta, read whole by a loop on the server's acceptor.
type seqPush struct {
	peer     *weida.Peer
	meta     weida.TransferMeta
	message  []byte
	expected int // what awaitDrained waits for
	stopped  chan error

	mu       sync.Mutex
	received int
	err      error         // the first bad message
	target   int           // the count reached is closed at
	reached  chan struct{} // nil while nobody waits
}

func openSeqPush(tb testing.TB, set guarantee.Set, meta weida.TransferMeta, messages int) *seqPush {
	pair := openSeqBenchPair(tb, set)
	s := &seqPush{peer: pair.p, meta: meta, message: make([]byte, pushBytes), expected: messages, stopped: make(chan error, 1)}
	ctx, stop := context.WithCancel(context.Background())
	go func() { s.stopped <- s.drain(ctx, pair.a) }()
	tb.Cleanup(func() {
		stop()
		<-s.stopped
	})
	return s
}

// drain reads every transfer whole until ctx ends.
func (s *seqPush) drain(ctx context.Context, a *weida.Acceptor) error {
	for {
		item, err := a.Accept(ctx)
		if err != nil {
			return err
		}
		body, err := item.(*weida.IncomingTransfer).Collect(pushBytes)
		if err == nil && len(body) != pushBytes {
			err = fmt.Errorf("a message of %d bytes arrived, want %d", len(body), pushBytes)
		}
		s.mu.Lock()
		s.received++
		if err != nil && s.err == nil {
			s.err = err
		}
		if s.reached != nil && s.received >= s.target {
			close(s.reached)
			s.reached = nil
		}
		s.mu.Unlock()
	}
}

func (s *seqPush) push(ctx context.Context) error {
	out, err := s.peer.Open(ctx, s.meta)
	if err != nil {
		return err
	}
	if _, err := out.Write(s.message); err != nil {
		return err
	}
	_, err = out.Finish()
	return err
}

func (s *seqPush) awaitDrained(ctx context.Context) error { return s.awaitCount(ctx, s.expected) }

// awaitCount waits until n messages in all were read.
func (s *seqPush) awaitCount(ctx context.Context, n int) error {
	s.mu.Lock()
	if s.received >= n {
		defer s.mu.Unlock()
		return s.err
	}
	reached := make(chan struct{})
	s.target, s.reached = n, reached
	s.mu.Unlock()
	select {
	case <-reached:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.err
	case err := <-s.stopped:
		return fmt.Errorf("the receiver stopped early: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BenchmarkSeqPush64B compares the 64 B push rate of core, sequence and
// sequence with a producer key, and reports the mean DATA header the run
// wrote (key 6 grows with the number: 1 byte below 24, 3 to 65535, 5 to
// 2^32-1).
func BenchmarkSeqPush64B(b *testing.B) {
	for _, m := range seqBenchModes {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			elapsed := measurePushes(b, openSeqPush(b, m.set, m.meta, b.N), b.N)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
			b.ReportMetric(seqMeanHeaderBytes(m.set, m.meta, b.N), "hdr-B")
		})
	}
}

// seqMeanHeaderBytes is the mean size of the DATA headers a Peer.Open of
// meta writes for its first n transfers under set: the frame the encoder
// produces for the fields openTransfer fills. TestSeqHeaderBytesPerMode
// checks the same sizes against what crossed the wire.
func seqMeanHeaderBytes(set guarantee.Set, meta weida.TransferMeta, n int) float64 {
	h := wire.Data{Endpoint: wire.Some(benchPath)}
	if meta.Producer != (weida.Fingerprint{}) {
		h.Producer = wire.Some([wire.ProducerLen]byte(meta.Producer))
	}
	total := 0
	for i := range n {
		if set.Ordering != guarantee.OrderingNone {
			h.Sequence = wire.Some(uint64(i))
		}
		total += len(wire.AppendFrame(nil, wire.KindData, &h)) - 3 // less the preamble (1-byte header_len)
	}
	return float64(total) / float64(max(n, 1))
}

// BenchmarkSeqPushInterleaved runs the three modes in turns of 500 pushes
// each, in rotating order, every mode on its own established connection,
// and reports each mode's rate and CPU time per message (both ends, this
// process), and their change against core. Taking turns spreads the noise
// of a shared machine over all modes alike, which back-to-back runs of
// BenchmarkSeqPush64B do not; CPU time is the steadier of the two figures
// when other processes compete for the cores.
func BenchmarkSeqPushInterleaved(b *testing.B) {
	const turn = 500
	if _, ok := processCPU(); !ok {
		b.Skip("no process CPU time on this platform")
	}
	subjects := make([]*seqPush, len(seqBenchModes))
	for i, m := range seqBenchModes {
		subjects[i] = openSeqPush(b, m.set, m.meta, -1)
	}
	wall := make([]time.Duration, len(subjects))
	cpu := make([]time.Duration, len(subjects))
	rounds := 0
	for b.Loop() {
		rounds++
		for k := range subjects {
			// Each round starts with the next mode, so no mode always runs
			// right after the same other one (and its garbage).
			i := (rounds + k) % len(subjects)
			s := subjects[i]
			start, startCPU := time.Now(), processCPUNow()
			for range turn {
				if err := s.push(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.awaitCount(b.Context(), rounds*turn); err != nil {
				b.Fatal(err)
			}
			wall[i] += time.Since(start)
			cpu[i] += processCPUNow() - startCPU
		}
	}
	messages := float64(rounds * turn)
	for i, m := range seqBenchModes {
		rate, cpuPer := messages/wall[i].Seconds(), float64(cpu[i].Nanoseconds())/messages
		b.ReportMetric(rate, m.name+"-msgs/s")
		b.ReportMetric(cpuPer, m.name+"-cpu-ns/msg")
		if i > 0 {
			coreRate, coreCPU := messages/wall[0].Seconds(), float64(cpu[0].Nanoseconds())/messages
			b.ReportMetric(100*(rate-coreRate)/coreRate, m.name+"-rate-vs-core-%")
			b.ReportMetric(100*(cpuPer-coreCPU)/coreCPU, m.name+"-cpu-vs-core-%")
		}
	}
}

// processCPUNow is processCPU where the platform was checked to have it.
func processCPUNow() time.Duration {
	cpu, _ := processCPU()
	return cpu
}

// BenchmarkSeqReorderHold256 sends 256 transfers per op to a reassembling
// receiver, finished backwards (the worst order) or from 256 goroutines at
// once, each op on a fresh connection (set up off the clock), and reports
// the peak of the reorder hold: the mean over ops and the largest.
func BenchmarkSeqReorderHold256(b *testing.B) {
	for _, send := range []struct {
		name string
		run  func(testing.TB, *weida.Peer, int)
	}{
		{"reverse-finish", seqReverseFinish},
		{"concurrent", seqConcurrentPushes},
	} {
		b.Run(send.name, func(b *testing.B) {
			var sum, most, ops int
			for b.Loop() {
				b.StopTimer()
				pair := openSeqBenchPair(b, seqReassemble)
				b.StartTimer()
				send.run(b, pair.p, 256)
				for range 256 {
					item, err := pair.a.Accept(b.Context())
					if err != nil {
						b.Fatal(err)
					}
					if _, err := item.(*weida.IncomingTransfer).Collect(1 << 10); err != nil {
						b.Fatal(err)
					}
				}
				peak := weida.SeqStates(pair.server)[0].PeakHeld
				sum, most, ops = sum+peak, max(most, peak), ops+1
				b.StopTimer()
				pair.shutdown()
				b.StartTimer()
			}
			b.ReportMetric(float64(sum)/float64(ops), "mean-peak-held")
			b.ReportMetric(float64(most), "max-peak-held")
		})
	}
}

// TestSeqBenchHarnessSmoke runs the push benchmark's body for a few
// messages per mode, so `go test` keeps its harness from rotting.
func TestSeqBenchHarnessSmoke(t *testing.T) {
	for _, m := range seqBenchModes {
		t.Run(m.name, func(t *testing.T) {
			if elapsed := measurePushes(t, openSeqPush(t, m.set, m.meta, 5), 5); elapsed <= 0 {
				t.Fatalf("elapsed %v, want a positive duration", elapsed)
			}
			core := seqMeanHeaderBytes(guarantee.Set{}, weida.TransferMeta{}, 1)
			if got := seqMeanHeaderBytes(m.set, m.meta, 1); got != core+m.extra {
				t.Fatalf("a %s header of %v bytes, want core's %v + %v", m.name, got, core, m.extra)
			}
		})
	}
}
