package weida_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// pubsubBenchLag is how many publications the slowest subscriber may lag
// behind: half its queue (endpoint_queue 256), so the benchmark measures
// delivery in steady state rather than the drop path.
const pubsubBenchLag = 128

// BenchmarkPublish1KiB publishes 1 KiB payloads to 1, 8 and 64 subscribers,
// each on its own connection and reading as fast as it can, over loopback
// in this process (allocations count both ends). The publisher is paced by
// the slowest subscriber, and the clock stops once every copy was received.
// ns/op is the wall time per publication; ns/sub-publish divides it by the
// subscribers (the cost of one delivered copy); copies/s is the delivery
// rate; publish-ns is the time spent inside Publish itself, which never
// waits for a subscriber; drops/op should stay near 0.
func BenchmarkPublish1KiB(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			r := pubsubMeasure(b, n, b.N)
			b.ReportMetric(float64(r.elapsed.Nanoseconds())/float64(b.N*n), "ns/sub-publish")
			b.ReportMetric(float64(r.delivered)/r.elapsed.Seconds(), "copies/s")
			b.ReportMetric(float64(r.inPublish.Nanoseconds())/float64(b.N), "publish-ns")
			b.ReportMetric(float64(r.dropped)/float64(b.N), "drops/op")
		})
	}
}

// TestPubSubBenchHarnessSmoke runs the benchmark body for a few
// publications, so `go test` keeps its harness from rotting.
func TestPubSubBenchHarnessSmoke(t *testing.T) {
	r := pubsubMeasure(t, 2, 5)
	if r.delivered != 10 || r.dropped != 0 || r.elapsed <= 0 || r.inPublish <= 0 {
		t.Fatalf("measured %+v, want 10 copies delivered and none dropped", r)
	}
}

// pubsubResult is what one measurement observed.
type pubsubResult struct {
	elapsed   time.Duration // first publication until every copy settled
	inPublish time.Duration // summed time inside Publish
	delivered uint64
	dropped   uint64
}

// pubsubMeasure publishes n times to subscribers and waits until every
// copy was delivered or dropped; under a benchmark the timer covers
// exactly that.
func pubsubMeasure(tb testing.TB, subscribers, n int) pubsubResult {
	bench := pubsubBenchSetup(tb, subscribers)
	payload := make([]byte, 1<<10)
	var inPublish time.Duration
	restartTimer(tb)
	start := time.Now()
	for i := range n {
		bench.pace(tb, uint64(i))
		began := time.Now()
		if _, err := bench.pub.Publish("bench.ticks", payload); err != nil {
			tb.Fatal(err)
		}
		inPublish += time.Since(began)
	}
	bench.awaitSettled(tb, uint64(n))
	stopTimer(tb)
	return pubsubResult{elapsed: time.Since(start), inPublish: inPublish,
		delivered: bench.deliveredTotal(), dropped: bench.pub.Dropped()}
}

// pubsubBench is a publisher whose subscribers count what they receive.
type pubsubBench struct {
	pub       *weida.Publisher
	delivered []atomic.Uint64 // per subscriber
	progress  chan struct{}   // signalled (lossily) on every delivery
}

// pubsubBenchSetup binds a publisher and connects n subscribers, each from
// its own runtime, with reader goroutines that end at teardown.
func pubsubBenchSetup(tb testing.TB, n int) *pubsubBench {
	tb.Helper()
	server := newRuntime(tb)
	id, err := weida.GenerateIdentity()
	if err != nil {
		tb.Fatal(err)
	}
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		tb.Fatal(err)
	}
	pub, err := binding.Publisher("/bench-pubsub")
	if err != nil {
		tb.Fatal(err)
	}
	bench := &pubsubBench{pub: pub, delivered: make([]atomic.Uint64, n), progress: make(chan struct{}, 1)}
	ctx, stop := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	tb.Cleanup(func() {
		stop()
		readers.Wait()
	})
	for i := range n {
		sub := newRuntime(tb).Subscriber(weida.TrustByAddress())
		if err := sub.Connect(tb.Context(), binding.URL("/bench-pubsub")); err != nil {
			tb.Fatal(err)
		}
		if err := sub.Subscribe(tb.Context(), "bench.#"); err != nil {
			tb.Fatal(err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				if _, _, err := sub.Recv(ctx, 4<<10); err != nil {
					if errors.Is(err, weida.ErrCanceled) {
						// Stopped, or the subscriber closed: teardown shuts the
						// runtimes down before it cancels ctx, and a closed
						// subscriber's Recv fails at once, so going on would spin.
						return
					}
					continue // a copy lost at the wire: the publisher counts it
				}
				bench.delivered[i].Add(1)
				select {
				case bench.progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	bench.await(tb, "the subscriptions", func() bool { return pub.SubscriberCount() == n })
	return bench
}

// pace waits until the slowest subscriber is less than pubsubBenchLag
// publications behind; drops count as progress, so a lost copy cannot
// stall the benchmark.
func (p *pubsubBench) pace(tb testing.TB, published uint64) {
	for published >= p.slowest()+p.pub.Dropped()+pubsubBenchLag {
		select {
		case <-p.progress:
		case <-time.After(10 * time.Millisecond): // a signal lost to the lossy channel
		case <-tb.Context().Done():
			tb.Fatal("canceled while pacing")
		}
	}
}

// awaitSettled waits until every subscriber received every publication,
// a drop standing in for the copy it lost.
func (p *pubsubBench) awaitSettled(tb testing.TB, published uint64) {
	p.await(tb, "every copy to be delivered or dropped", func() bool {
		return p.deliveredTotal()+p.pub.Dropped() >= published*uint64(len(p.delivered))
	})
}

func (p *pubsubBench) slowest() uint64 {
	low := p.delivered[0].Load()
	for i := range p.delivered[1:] {
		low = min(low, p.delivered[i+1].Load())
	}
	return low
}

func (p *pubsubBench) deliveredTotal() uint64 {
	var n uint64
	for i := range p.delivered {
		n += p.delivered[i].Load()
	}
	return n
}

func (p *pubsubBench) await(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
