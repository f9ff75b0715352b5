package weida_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// BenchmarkPusherSend64B measures the one-way path users call: Pusher.Send
// of 64 B on each of 1 and 4 producer connections, into one Puller that
// drains with RecvAppend into a reused buffer, over loopback in this
// process (allocations count both ends). The clock stops once the puller
// has received every message.
func BenchmarkPusherSend64B(b *testing.B) {
	for _, producers := range []int{1, 4} {
		b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
			b.ReportAllocs()
			elapsed := measurePusherSends(b, producers, b.N)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
		})
	}
}

// TestPusherSendBenchSmoke runs the benchmark body for a few messages, so
// `go test` keeps its harness from rotting.
func TestPusherSendBenchSmoke(t *testing.T) {
	if elapsed := measurePusherSends(t, 2, 10); elapsed <= 0 {
		t.Fatalf("elapsed = %v, want a positive duration", elapsed)
	}
}

// measurePusherSends sends n messages spread over producers connections
// and waits until the puller received them all.
func measurePusherSends(tb testing.TB, producers, n int) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	tb.Cleanup(cancel)
	id, err := weida.GenerateIdentity()
	if err != nil {
		tb.Fatal(err)
	}
	srv := pushpullServeAt(tb, "127.0.0.1:0", id, weida.Config{})
	pushers := make([]*weida.Pusher, producers)
	for i := range pushers {
		// One runtime per producer: a connection of its own each.
		pushers[i] = runtimeWith(tb, weida.Config{}).Pusher(weida.TrustByAddress())
		if err := pushers[i].Connect(ctx, srv.url); err != nil {
			tb.Fatal(err)
		}
	}
	received := make(chan error, 1)
	go func() {
		buf := make([]byte, 0, pushBytes+1)
		for range n {
			body, _, err := srv.pull.RecvAppend(ctx, buf[:0], pushBytes+1)
			if err == nil && len(body) != pushBytes {
				err = fmt.Errorf("a message of %d bytes arrived, want %d", len(body), pushBytes)
			}
			if err != nil {
				received <- err
				return
			}
		}
		received <- nil
	}()
	payload := make([]byte, pushBytes)
	clock := startClock(tb)
	var wg sync.WaitGroup
	errs := make(chan error, producers)
	for i, p := range pushers {
		wg.Go(func() {
			for range n/producers + boolInt(i < n%producers) {
				if err := p.Send(ctx, payload); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatalf("send: %v", err)
	}
	if err := <-received; err != nil {
		tb.Fatalf("receive: %v", err)
	}
	return clock.stop(n)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
