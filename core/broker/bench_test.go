package broker

import (
	"context"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// BenchmarkConfirmedSendThroughTheQueue is one message's whole life on a
// memory queue: an exchange confirmed Accepted, a delivery to a consumer
// with credit, and its settlement by Processed.
func BenchmarkConfirmedSendThroughTheQueue(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rt, _ := weida.NewRuntime(weida.Config{})
	defer rt.Shutdown()
	id, _ := weida.GenerateIdentity()
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		b.Fatal(err)
	}
	br, err := New(rt, queues("/jobs"))
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = br.Serve(ctx) }()
	defer br.Close()
	url := binding.URL("/jobs")

	crt, _ := weida.NewRuntime(weida.Config{})
	defer crt.Shutdown()
	sub := crt.Subscriber(weida.TrustByAddress())
	if err := sub.Connect(ctx, url); err != nil {
		b.Fatal(err)
	}
	_ = sub.Subscribe(ctx, "")
	_ = sub.Grant(ctx, uint64(b.N)+1)
	consumed := make(chan error, 1)
	go func() {
		for range b.N {
			body, _, r, err := sub.RecvReporting(ctx, 1<<20)
			if err != nil {
				consumed <- err
				return
			}
			_ = r.Report(weida.Processed, uint64(len(body)))
			_ = r.Finish()
		}
		consumed <- nil
	}()

	prt, _ := weida.NewRuntime(weida.Config{})
	defer prt.Shutdown()
	req := prt.Requester(weida.TrustByAddress())
	if err := req.Connect(ctx, url); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 1024)
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for range b.N {
		if _, err := req.Request(ctx, payload, 16); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-consumed; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	q := br.byPath["/jobs"]
	if err := q.await(ctx, func() bool { return len(q.unsettled) == 0 && len(q.ready) == 0 }); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWrittenConfirmsInFlight is the benchmark report's queue case
// "publish with confirm, 256 in flight" on a Written queue: one producer
// connection, 256 exchanges at once, no consumer.
func BenchmarkWrittenConfirmsInFlight(b *testing.B) {
	const inFlight = 256
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := Config{Queues: []QueueConfig{{Path: "/jobs", Durability: Written}}, DataDir: b.TempDir(), QueueBytes: 1 << 30}
	rt, _ := weida.NewRuntime(RuntimeConfig(weida.Config{}, cfg))
	defer rt.Shutdown()
	id, _ := weida.GenerateIdentity()
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		b.Fatal(err)
	}
	br, err := New(rt, cfg)
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = br.Serve(ctx) }()
	defer br.Close()
	prt, _ := weida.NewRuntime(weida.Config{})
	defer prt.Shutdown()
	req := prt.Requester(weida.TrustByAddress())
	if err := req.Connect(ctx, binding.URL("/jobs")); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := make([]byte, 64)
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				binary.BigEndian.PutUint64(body, uint64(n)) // no two alike: the store deduplicates
				if _, err := req.Request(ctx, body, 16); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
