package weida_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// The transport benchmarks measure the patterns, not raw streams, over
// each transport — QUIC on loopback, in process, AF_UNIX — in steady state
// on a connection made before the timer starts: a 1 KiB Req/Rep round trip
// (Requester.Request against a Replier echoing 1 KiB) and 64-byte
// Pusher.Send to a draining Puller.

// BenchmarkTransportsReqRep1KiB reports ns per round trip, its median and
// 99th percentile.
func BenchmarkTransportsReqRep1KiB(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			b.ReportAllocs()
			rtts := measureExchanges(b, openReqRepOver(b, tr), b.N)
			slices.Sort(rtts)
			b.ReportMetric(float64(percentile(rtts, 0.50)), "p50-ns")
			b.ReportMetric(float64(percentile(rtts, 0.99)), "p99-ns")
		})
	}
}

// BenchmarkTransportsPush64B reports ns per message until the puller has
// drained all of them.
func BenchmarkTransportsPush64B(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			b.ReportAllocs()
			elapsed := measurePushes(b, openPushPullOver(b, tr, b.N), b.N)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
		})
	}
}

// TestTransportsBenchSmoke runs the benchmark bodies for a few operations
// on every transport, so the harness cannot rot.
func TestTransportsBenchSmoke(t *testing.T) {
	const ops = 5
	forEachTransport(t, func(t *testing.T, tr testTransport) {
		if rtts := measureExchanges(t, openReqRepOver(t, tr), ops); len(rtts) != ops || slices.Min(rtts) <= 0 {
			t.Fatalf("round trips = %v, want %d positive durations", rtts, ops)
		}
		if elapsed := measurePushes(t, openPushPullOver(t, tr, ops), ops); elapsed <= 0 {
			t.Fatalf("elapsed = %v, want a positive duration", elapsed)
		}
	})
}

// reqrepSubject is a requester connected to an echoing replier.
type reqrepSubject struct {
	req     *weida.Requester
	request []byte
}

func openReqRepOver(tb testing.TB, tr testTransport) exchangeSubject {
	server := newRuntime(tb)
	b := tr.bind(tb, server)
	rep, err := b.Replier(benchPath)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		for {
			r, err := rep.Accept(ctx, collectLimit)
			if err == nil {
				err = r.Reply(ctx, r.Payload())
			}
			if err != nil {
				if ctx.Err() != nil {
					err = nil // asked to stop
				}
				stopped <- err
				return
			}
		}
	}()
	req := newRuntime(tb).Requester(weida.TrustByAddress())
	if err := req.Connect(tb.Context(), b.URL(benchPath)); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stop()
		if err := <-stopped; err != nil {
			tb.Errorf("replier: %v", err)
		}
	})
	return &reqrepSubject{req: req, request: make([]byte, exchangeBytes)}
}

func (s *reqrepSubject) roundTrip(ctx context.Context) error {
	reply, err := s.req.Request(ctx, s.request, exchangeBytes)
	return expectSize(len(reply), err)
}

// pushpullSubject is a pusher connected to a puller that drains on its
// own goroutine into a tally.
type pushpullSubject struct {
	pusher  *weida.Pusher
	message []byte
	tally   *tally
	stopped chan struct{}
}

func openPushPullOver(tb testing.TB, tr testTransport, messages int) pushSubject {
	server := newRuntime(tb)
	b := tr.bind(tb, server)
	pull, err := b.Puller(benchPath)
	if err != nil {
		tb.Fatal(err)
	}
	s := &pushpullSubject{message: make([]byte, pushBytes), tally: newTally(messages), stopped: make(chan struct{})}
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		defer close(s.stopped)
		for {
			body, _, err := pull.Recv(ctx, pushBytes)
			if ctx.Err() != nil {
				return
			}
			s.tally.count(len(body), err)
		}
	}()
	tb.Cleanup(func() { stop(); <-s.stopped })
	s.pusher = newRuntime(tb).Pusher(weida.TrustByAddress())
	if err := s.pusher.Connect(tb.Context(), b.URL(benchPath)); err != nil {
		tb.Fatal(err)
	}
	return s
}

func (s *pushpullSubject) push(ctx context.Context) error { return s.pusher.Send(ctx, s.message) }

func (s *pushpullSubject) awaitDrained(ctx context.Context) error {
	select {
	case <-s.tally.done:
		return s.tally.err
	case <-s.stopped:
		return fmt.Errorf("the puller stopped early")
	case <-ctx.Done():
		return ctx.Err()
	}
}
