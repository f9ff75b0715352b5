package loss

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/latency"
	"github.com/weida-go/weida/internal/scale"
)

// TestRequestsUnderLoss runs 1,000 (10,000 heavy) Req/Rep exchanges, 32 at
// a time, through the lossy path: every one completes with its own reply,
// byte-exact. Latency percentiles are recorded.
func TestRequestsUnderLoss(t *testing.T) {
	const concurrency = 32
	n := scale.Pick(1000, 10000)
	s := startServer(t)
	url, proxy := s.lossyURL(t, echoPath, 23)
	r := clientRuntime(t).Requester(weida.TrustByAddress())
	if err := r.Connect(ctxFor(t, time.Minute), url); err != nil {
		t.Fatalf("connect through 30%% handshake loss: %v", err)
	}
	var (
		next   atomic.Int64
		failed atomic.Int64
		lat    latency.Recorder
		wg     sync.WaitGroup
	)
	ctx := ctxFor(t, 10*time.Minute)
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				want := payloadFor(i)
				t0 := time.Now()
				got, err := r.Request(ctx, want, 1<<20)
				lat.Since(t0)
				if err != nil || !bytes.Equal(got, want) {
					if failed.Add(1) <= 5 {
						t.Errorf("exchange %d: %d bytes back, %v; want its %d bytes", i, len(got), err, len(want))
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if f := failed.Load(); f != 0 {
		t.Fatalf("%d of %d exchanges failed", f, n)
	}
	t.Logf("figure: %d exchanges (16 B–16 KiB, %d in flight) through 2%% loss in %v (%.0f/s); latency %s; %s",
		n, concurrency, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), lat.Summary(), proxyFigures(proxy))
}
