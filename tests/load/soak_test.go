package load

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/latency"
	"github.com/weida-go/weida/internal/resources"
	"github.com/weida-go/weida/internal/scale"
)

// The soak's sustained load: soakConns connections, each running
// exchanges at soakRate/soakConns per second and pushing one-way messages
// at soakPushRate/soakConns per second.
const (
	soakConns    = 50
	soakRate     = 2000 // exchanges per second, all connections together
	soakPushRate = 200  // one-way messages per second, all connections together
	soakPushSize = 16 << 10
	soakSample   = 30 * time.Second // one figure line per interval
)

// TestSoak runs the sustained load for WEIDA_SOAK (10 minutes by default),
// in the heavy command only. Every exchange must come back byte-exact,
// every push that Send accepted must reach the puller, the live heap's
// floor must not rise while the load runs (heapFloors), and afterwards
// goroutines, heap and resident memory return to their baselines. Latency
// percentiles are recorded per interval.
func TestSoak(t *testing.T) {
	d, ok, err := scale.Soak()
	if err != nil {
		t.Fatalf("WEIDA_SOAK: %v", err)
	}
	if !ok {
		t.Skip("the soak runs in the heavy command only (build/soak.sh sets WEIDA_HEAVY=1)")
	}
	warmUp(t)
	base := resources.Take()
	baseRSS, rssErr := resources.RSS()
	peakRSS, peakGoroutines := runSoak(t, d)
	if t.Failed() {
		return
	}
	if err := base.AwaitGoroutines(goroutineSlack, time.Minute); err != nil {
		t.Fatal(err)
	}
	heapErr := base.AwaitHeap(heapReturnBound(peakGoroutines), time.Minute)
	after := resources.Take()
	afterRSS, _ := resources.RSS()
	t.Logf("figure: soak over: %d goroutines (baseline %d), heap %s (baseline %s), RSS %s (baseline %s, peak %s)",
		after.Goroutines, base.Goroutines, resources.MiB(after.HeapBytes), resources.MiB(base.HeapBytes),
		resources.MiB(afterRSS), resources.MiB(baseRSS), resources.MiB(peakRSS))
	if heapErr != nil {
		t.Fatal(heapErr)
	}
	if rssErr == nil && !resources.RaceDetector && int64(afterRSS)-int64(baseRSS) > rssReturnBound(peakRSS-baseRSS) {
		t.Fatalf("RSS stayed at %s, baseline %s (peak %s): more than %s above it", resources.MiB(afterRSS),
			resources.MiB(baseRSS), resources.MiB(peakRSS), resources.MiB(rssReturnBound(peakRSS-baseRSS)))
	}
}

// soakClient is one connection's worth of load: a requester and a pusher
// of one runtime.
type soakClient struct {
	rt   *weida.Runtime
	req  *weida.Requester
	push *weida.Pusher
}

// runSoak runs the load for d and shuts it down; nothing it made is
// referenced once it returns. It returns the peak resident memory and
// goroutine count.
func runSoak(t *testing.T, d time.Duration) (peakRSS uint64, peakGoroutines int) {
	s, stopServer := startServer(t)
	defer stopServer()
	ctx := ctxFor(t, d+5*time.Minute)
	clients := make([]soakClient, soakConns)
	for i := range clients {
		rt, err := weida.NewRuntime(weida.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Shutdown()
		c := soakClient{rt: rt, req: rt.Requester(weida.TrustByAddress()), push: rt.Pusher(weida.TrustByAddress())}
		if err := c.req.Connect(ctx, s.url(echoPath)); err != nil {
			t.Fatal(err)
		}
		if err := c.push.Connect(ctx, s.url(sinkPath)); err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}

	var (
		mu       sync.Mutex
		interval = new(latency.Recorder) // this interval's exchanges
		total    latency.Recorder
		failed   atomic.Int64
		done     atomic.Int64
		pushed   atomic.Int64
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	record := func(d time.Duration) {
		total.Add(d)
		mu.Lock()
		interval.Add(d)
		mu.Unlock()
	}
	// paced runs op every period until stop; a slow op skips ticks rather
	// than bunching them, so the achieved rate is what is reported.
	paced := func(period time.Duration, op func(k int)) {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			case <-tick.C:
				op(k)
			}
		}
	}
	for i, c := range clients {
		wg.Add(2)
		go paced(time.Second*soakConns/soakRate, func(k int) {
			want := fmt.Appendf(nil, "soak %d/%d", i, k)
			t0 := time.Now()
			got, err := c.req.Request(ctx, want, 1<<10)
			record(time.Since(t0))
			if err != nil || !bytes.Equal(got, want) {
				if failed.Add(1) <= 5 {
					t.Errorf("exchange %s: %q, %v", want, got, err)
				}
				return
			}
			done.Add(1)
		})
		push := bytes.Repeat([]byte{byte(i)}, soakPushSize)
		go paced(time.Second*soakConns/soakPushRate, func(int) {
			if err := c.push.Send(ctx, push); err != nil {
				if failed.Add(1) <= 5 {
					t.Errorf("push: %v", err)
				}
				return
			}
			pushed.Add(1)
		})
	}

	start := time.Now()
	var heaps []uint64 // the live heap at each sample
	sample := time.NewTicker(soakSample)
	for elapsed := time.Duration(0); elapsed < d; elapsed = time.Since(start) {
		<-sample.C
		mu.Lock()
		slice := interval
		interval = new(latency.Recorder)
		mu.Unlock()
		snap := resources.Take()
		rss, _ := resources.RSS()
		peakRSS, peakGoroutines = max(peakRSS, rss), max(peakGoroutines, snap.Goroutines)
		heaps = append(heaps, snap.HeapBytes)
		sum := slice.Summary()
		t.Logf("figure: soak t=%v: %.0f exchanges/s, latency %s; %d goroutines, heap %s, RSS %s",
			time.Since(start).Round(time.Second), float64(sum.N)/soakSample.Seconds(), sum,
			snap.Goroutines, resources.MiB(snap.HeapBytes), resources.MiB(rss))
	}
	sample.Stop()
	if early, late, ok := heapFloors(heaps); ok {
		t.Logf("figure: soak heap floor %s in the first third, %s in the last", resources.MiB(early), resources.MiB(late))
		if late > early*5/4+16<<20 {
			t.Errorf("the live heap's floor rose from %s to %s under a steady load", resources.MiB(early), resources.MiB(late))
		}
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	// Every push Send accepted must reach the puller: the connections stay
	// up, so nothing is lost; the last ones may still be in flight.
	deadline := time.Now().Add(time.Minute)
	for s.sunk.Load() < pushed.Load() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got, want := s.sunk.Load(), pushed.Load(); got != want {
		t.Errorf("the puller received %d of %d accepted pushes", got, want)
	}
	if f := failed.Load(); f != 0 {
		t.Errorf("%d operations failed", f)
	}
	t.Logf("figure: soak of %v over %d connections: %d exchanges (%.0f/s, target %d/s), latency %s; %d pushes of %d KiB (%.0f/s), all received",
		elapsed.Round(time.Second), soakConns, done.Load(), float64(done.Load())/elapsed.Seconds(), soakRate, total.Summary(),
		pushed.Load(), soakPushSize>>10, float64(pushed.Load())/elapsed.Seconds())
	return peakRSS, peakGoroutines
}

// heapFloors returns the lowest live heap sampled in the first and in the
// last third of the soak, the first sample left out (pools and windows
// still warming). Under a steady load the heap swings with what is in
// flight — a stall on a shared machine piles work up — but its floor only
// rises if something accumulates: at 2,000 exchanges/s for 10 minutes,
// 16 MiB is about 13 bytes per exchange. ok is false with too few samples.
func heapFloors(heaps []uint64) (early, late uint64, ok bool) {
	if len(heaps) < 4 {
		return 0, 0, false
	}
	heaps = heaps[1:]
	third := len(heaps) / 3
	return slices.Min(heaps[:third]), slices.Min(heaps[len(heaps)-third:]), true
}
