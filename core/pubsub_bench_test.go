package weida_test

import (
	"context"
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
			bench := pubsubBenchSetup(b, n)
			payload := make([]byte, 1<<10)
			var inPublish time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				bench.pace(b, uint64(i))
				began := time.Now()
				if _, err := bench.pub.Publish("bench.ticks", payload); err != nil {
					b.Fatal(err)
				}
				inPublish += time.Since(began)
			}
			bench.awaitSettled(b, uint64(b.N))
			b.StopTimer()
			elapsed := time.Since(start)
			copies := uint64(b.N) * uint64(n)
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(copies), "ns/sub-publish")
			b.ReportMetric(float64(bench.deliveredTotal())/elapsed.Seconds(), "copies/s")
			b.ReportMetric(float64(inPublish.Nanoseconds())/float64(b.N), "publish-ns")
			b.ReportMetric(float64(bench.pub.Dropped())/float64(b.N), "drops/op")
		})
	}
}

// pubsubBench is a publisher whose subscribers count what they receive.
type pubsubBench struct {
	pub       *weida.Publisher
	delivered []atomic.Uint64 // per subscriber
	progress  chan struct{}   // signalled (lossily) on every delivery
}

// pubsubBenchSetup binds a publisher and connects n subscribers, each from
// its own runtime, with reader goroutines that end at teardown.
func pubsubBenchSetup(b *testing.B, n int) *pubsubBench {
	b.Helper()
	server := newRuntime(b)
	id, err := weida.GenerateIdentity()
	if err != nil {
		b.Fatal(err)
	}
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := binding.Publisher("/bench-pubsub")
	if err != nil {
		b.Fatal(err)
	}
	bench := &pubsubBench{pub: pub, delivered: make([]atomic.Uint64, n), progress: make(chan struct{}, 1)}
	ctx, stop := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	b.Cleanup(func() {
		stop()
		readers.Wait()
	})
	for i := range n {
		sub := newRuntime(b).Subscriber(weida.TrustByAddress())
		if err := sub.Connect(b.Context(), binding.URL("/bench-pubsub")); err != nil {
			b.Fatal(err)
		}
		if err := sub.Subscribe(b.Context(), "bench.#"); err != nil {
			b.Fatal(err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				if _, _, err := sub.Recv(ctx, 4<<10); err != nil {
					if ctx.Err() != nil {
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
	bench.await(b, "the subscriptions", func() bool { return pub.SubscriberCount() == n })
	return bench
}

// pace waits until the slowest subscriber is less than pubsubBenchLag
// publications behind; drops count as progress, so a lost copy cannot
// stall the benchmark.
func (p *pubsubBench) pace(b *testing.B, published uint64) {
	for published >= p.slowest()+p.pub.Dropped()+pubsubBenchLag {
		select {
		case <-p.progress:
		case <-time.After(10 * time.Millisecond): // a signal lost to the lossy channel
		case <-b.Context().Done():
			b.Fatal("canceled while pacing")
		}
	}
}

// awaitSettled waits until every subscriber received every publication,
// a drop standing in for the copy it lost.
func (p *pubsubBench) awaitSettled(b *testing.B, published uint64) {
	p.await(b, "every copy to be delivered or dropped", func() bool {
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

func (p *pubsubBench) await(b *testing.B, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
