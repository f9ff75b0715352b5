package load

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/latency"
	"github.com/weida-go/weida/internal/resources"
	"github.com/weida-go/weida/internal/scale"
)

// TestManyConnections opens 100 (1,000 heavy) client connections to one
// listener, each from a runtime of its own, and runs 4 concurrent exchanges
// on each, 5 rounds. Every exchange must come back byte-exact. Once the
// clients and then the server are gone, goroutines return to the baseline,
// the live heap to within heapReturnBound of it and resident memory gives
// back at least half its rise (rssReturnBound; not judged under the race
// detector, whose shadow memory stays resident).
func TestManyConnections(t *testing.T) {
	conns := scale.Pick(100, 1000)
	warmUp(t)
	base := resources.Take()
	baseRSS, rssErr := resources.RSS()
	peakRSS, peakGoroutines := runConnections(t, conns)
	if t.Failed() {
		return
	}
	if err := base.AwaitGoroutines(goroutineSlack, time.Minute); err != nil {
		t.Fatal(err)
	}
	heapErr := base.AwaitHeap(heapReturnBound(peakGoroutines), time.Minute)
	after := resources.Take()
	afterRSS, _ := resources.RSS()
	t.Logf("figure: after shutdown: %d goroutines (baseline %d), heap %s (baseline %s), stacks %s (baseline %s), RSS %s (baseline %s)",
		after.Goroutines, base.Goroutines, resources.MiB(after.HeapBytes), resources.MiB(base.HeapBytes),
		resources.MiB(after.StackBytes), resources.MiB(base.StackBytes), resources.MiB(afterRSS), resources.MiB(baseRSS))
	if heapErr != nil {
		t.Fatal(heapErr)
	}
	if rssErr == nil && !resources.RaceDetector && int64(afterRSS)-int64(baseRSS) > rssReturnBound(peakRSS-baseRSS) {
		t.Fatalf("RSS stayed at %s, baseline %s (peak %s): more than %s above it", resources.MiB(afterRSS), resources.MiB(baseRSS),
			resources.MiB(peakRSS), resources.MiB(rssReturnBound(peakRSS-baseRSS)))
	}
}

// runConnections is the load of TestManyConnections: it starts a server,
// opens conns client connections, runs the exchanges, records figures, and
// shuts everything down. Nothing it made is referenced once it returns, so
// what stays in the heap afterwards is what weida and quic-go kept. It
// returns the resident memory and the goroutine count at the peak.
func runConnections(t *testing.T, conns int) (peakRSS uint64, peakGoroutines int) {
	const perConn, rounds = 4, 5
	base := resources.Take()
	s, stopServer := startServer(t)
	defer stopServer()
	var (
		connLat latency.Recorder
		reqLat  latency.Recorder
		failed  atomic.Int64
		wg      sync.WaitGroup
	)
	clients := make([]*weida.Runtime, conns)
	defer func() {
		for _, rt := range clients {
			if rt != nil {
				rt.Shutdown()
			}
		}
	}()
	requesters := make([]*weida.Requester, conns)
	ctx := ctxFor(t, 5*time.Minute)
	start := time.Now()
	// Connect in bounded parallel batches: a thousand simultaneous
	// handshakes would measure the handshake CPU, not the steady state.
	sem := make(chan struct{}, 16)
	for i := range conns {
		rt, err := weida.NewRuntime(weida.Config{})
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = rt
		requesters[i] = rt.Requester(weida.TrustByAddress())
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			if err := requesters[i].Connect(ctx, s.url(echoPath)); err != nil {
				t.Errorf("connection %d: %v", i, err)
				return
			}
			connLat.Since(t0)
		}()
	}
	wg.Wait()
	connected := time.Since(start)
	if t.Failed() {
		return 0, 0
	}
	peak := resources.Take()
	peakRSS, _ = resources.RSS()
	peakGoroutines = peak.Goroutines

	start = time.Now()
	for i, r := range requesters {
		for j := range perConn {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range rounds {
					want := fmt.Appendf(nil, "conn %d worker %d round %d", i, j, k)
					t0 := time.Now()
					got, err := r.Request(ctx, want, 1<<10)
					reqLat.Since(t0)
					if err != nil || !bytes.Equal(got, want) {
						if failed.Add(1) <= 5 {
							t.Errorf("exchange %s: %q, %v", want, got, err)
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	exchanged := time.Since(start)
	n := conns * perConn * rounds
	t.Logf("figure: %d connections in %v (connect %s); %d exchanges (%d concurrent per connection) in %v (%.0f/s), latency %s",
		conns, connected.Round(time.Millisecond), connLat.Summary(), n, perConn, exchanged.Round(time.Millisecond),
		float64(n)/exchanged.Seconds(), reqLat.Summary())
	t.Logf("figure: with %d connections open: %d goroutines (+%d), live %s (+%s), RSS %s",
		conns, peak.Goroutines, peak.Goroutines-base.Goroutines, resources.MiB(peak.HeapBytes+peak.StackBytes),
		resources.MiB(int64(peak.HeapBytes+peak.StackBytes)-int64(base.HeapBytes+base.StackBytes)), resources.MiB(peakRSS))
	return peakRSS, peakGoroutines
}

// goroutineSlack tolerates the goroutines the Go and race runtimes start
// lazily and keep (timers, the race detector's own).
const goroutineSlack = 4

// heapReturnBound is the live heap a finished load that peaked at
// goroutines may leave behind: 4 MiB of caches plus the descriptors the Go
// runtime keeps of every goroutine it ran (resources.GoroutineDescriptor),
// not per-connection state (about 130 KiB a connection while open).
func heapReturnBound(goroutines int) int64 {
	return 4<<20 + int64(goroutines)*resources.GoroutineDescriptor
}

// rssReturnBound is how far above its baseline resident memory may stay
// after a load that raised it by rise. The Go runtime cannot hand back a
// page that still holds one live object, and what outlives a load (the
// goroutine descriptors it keeps, caches) is scattered over many pages, so
// resident memory does not fall to its baseline; the bound asks that at
// least half of the rise is given back (plus 16 MiB for small loads). A
// leak of the connections' own state, most of the rise, exceeds it; the
// heap checks are the precise ones.
func rssReturnBound(rise uint64) int64 { return int64(rise)/2 + 16<<20 }
