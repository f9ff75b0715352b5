// Package gobench holds the Go half of the C ABI benchmark: the same
// operations bench.c runs through libweida, called from Go directly, so
// the difference is the cost of the boundary. Run both with
// tests/capi/run.sh bench.
package gobench

import (
	"context"
	"syscall"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// setup serves /sink (a puller drained on a goroutine) and /echo (a replier
// echoing on a goroutine) on one runtime, and dials both from another.
func setup(b *testing.B) (*weida.Pusher, *weida.Requester) {
	b.Helper()
	ctx := context.Background()
	server, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		b.Fatal(err)
	}
	id, err := weida.GenerateIdentity()
	if err != nil {
		b.Fatal(err)
	}
	binding, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		b.Fatal(err)
	}
	puller, err := binding.Puller("/sink")
	if err != nil {
		b.Fatal(err)
	}
	replier, err := binding.Replier("/echo")
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for {
			if _, _, err := puller.Recv(ctx, 1024); err != nil {
				return
			}
		}
	}()
	go func() {
		for {
			req, err := replier.Accept(ctx, 1024)
			if err != nil {
				return
			}
			_ = req.Reply(ctx, req.Payload())
			_ = req.Close()
		}
	}()
	client, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		b.Fatal(err)
	}
	pusher := client.Pusher(weida.TrustByAddress())
	requester := client.Requester(weida.TrustByAddress())
	if err := pusher.Connect(ctx, binding.URL("/sink")); err != nil {
		b.Fatal(err)
	}
	if err := requester.Connect(ctx, binding.URL("/echo")); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		client.Shutdown()
		server.Shutdown()
	})
	return pusher, requester
}

var payload = make([]byte, 64)

// cpuTime is the process's user+system time so far (every thread).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op, the figure bench.c prints beside wall time: on a
// loaded machine it is the steadier of the two.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGoCall is abi_call's Go twin: a method call with no I/O.
func BenchmarkGoCall(b *testing.B) {
	pusher, _ := setup(b)
	start := cpuTime(b)
	for b.Loop() {
		_ = pusher.PeerCount()
	}
	reportCPU(b, start)
}

// BenchmarkGoSendBlocking is send_blocking's Go twin.
func BenchmarkGoSendBlocking(b *testing.B) {
	pusher, _ := setup(b)
	ctx := context.Background()
	start := cpuTime(b)
	for b.Loop() {
		if err := pusher.Send(ctx, payload); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkGoSendCompletion is send_callback's Go twin: the send runs on
// its own goroutine and its completion wakes the waiter through a channel.
func BenchmarkGoSendCompletion(b *testing.B) {
	pusher, _ := setup(b)
	ctx := context.Background()
	done := make(chan error, 1)
	start := cpuTime(b)
	for b.Loop() {
		go func() { done <- pusher.Send(ctx, payload) }()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkGoSendCompletionX64 is send_callback_x64's Go twin: up to 64
// sends in flight, each on its own goroutine.
func BenchmarkGoSendCompletionX64(b *testing.B) {
	pusher, _ := setup(b)
	ctx := context.Background()
	window := make(chan struct{}, 64)
	failed := make(chan error, 1)
	start := cpuTime(b)
	for b.Loop() {
		window <- struct{}{}
		go func() {
			if err := pusher.Send(ctx, payload); err != nil {
				select {
				case failed <- err:
				default:
				}
			}
			<-window
		}()
	}
	for range cap(window) {
		window <- struct{}{}
	}
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
	reportCPU(b, start)
}

// BenchmarkGoRequestBlocking is request_blocking's Go twin.
func BenchmarkGoRequestBlocking(b *testing.B) {
	_, requester := setup(b)
	ctx := context.Background()
	start := cpuTime(b)
	for b.Loop() {
		if _, err := requester.Request(ctx, payload, 1024); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkGoRequestCompletion is request_callback's Go twin.
func BenchmarkGoRequestCompletion(b *testing.B) {
	_, requester := setup(b)
	ctx := context.Background()
	done := make(chan error, 1)
	start := cpuTime(b)
	for b.Loop() {
		go func() {
			_, err := requester.Request(ctx, payload, 1024)
			done <- err
		}()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
