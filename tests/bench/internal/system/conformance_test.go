package system_test

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/all"
)

// Every system must do each workload's work correctly, or its figures
// would measure something else. These run each workload once, small.

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func eachSystem(t *testing.T, test func(t *testing.T, ctx context.Context, s system.System)) {
	for _, s := range all.Systems() {
		t.Run(s.Name(), func(t *testing.T) { test(t, testContext(t), s) })
	}
}

func closeWith(t *testing.T, c interface{ Close() error }) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
}

func TestEchoAnswersEverySizeWhole(t *testing.T) {
	eachSystem(t, func(t *testing.T, ctx context.Context, s system.System) {
		const maxSize = 1 << 20
		srv, err := s.StartEcho(ctx, maxSize)
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, srv)
		cli, err := s.DialEcho(ctx, srv.Addr(), maxSize)
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, cli)
		for _, size := range []int{1, 64, 64 << 10, maxSize} {
			if err := cli.Request(ctx, bytes.Repeat([]byte{9}, size)); err != nil {
				t.Fatalf("a %d-byte request: %v", size, err)
			}
		}
	})
}

func TestSinkCountsEveryMessageFromEveryProducer(t *testing.T) {
	eachSystem(t, func(t *testing.T, ctx context.Context, s system.System) {
		const size, producers, each = 64, 3, 50
		var got atomic.Int64
		all := make(chan struct{})
		var once sync.Once
		srv, err := s.StartSink(ctx, size, func(n int, err error) {
			if err != nil || n != size {
				t.Errorf("received %d bytes, %v; want %d", n, err, size)
			}
			if got.Add(1) == producers*each {
				once.Do(func() { close(all) })
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, srv)
		for range producers {
			snd, err := s.DialSource(ctx, srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			closeWith(t, snd)
			for range each {
				if err := snd.Send(ctx, make([]byte, size)); err != nil {
					t.Fatal(err)
				}
			}
		}
		select {
		case <-all:
		case <-ctx.Done():
			t.Fatalf("%d of %d messages arrived", got.Load(), producers*each)
		}
	})
}

func TestEverySubscriberGetsPublications(t *testing.T) {
	eachSystem(t, func(t *testing.T, ctx context.Context, s system.System) {
		const subscribers, size = 3, 1024
		pub, err := s.StartPublisher(ctx, size)
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, pub)
		var got [subscribers]atomic.Int64
		subs, err := s.DialSubscribers(ctx, pub.Addr(), subscribers, size, func(i int, p []byte) {
			if len(p) != size {
				t.Errorf("subscriber %d got %d bytes, want %d", i, len(p), size)
			}
			got[i].Add(1)
		})
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, subs)
		// Subscriptions take effect some time after they are made: publish
		// until every subscriber has something.
		for i := 0; ; i++ {
			done := true
			for j := range got {
				done = done && got[j].Load() > 0
			}
			if done {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("after %d publications some subscriber has none: %v", i, &got)
			}
			if err := pub.Publish(make([]byte, size)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond) // pacing the publisher, not synchronisation
		}
	})
}

func TestBulkArrivesWhole(t *testing.T) {
	eachSystem(t, func(t *testing.T, ctx context.Context, s system.System) {
		const total = 5<<20 + 123 // not a multiple of the chunk
		type outcome struct {
			n   int64
			err error
		}
		ended := make(chan outcome, 1)
		srv, err := s.StartBulkSink(ctx, func(n int64, err error) {
			select {
			case ended <- outcome{n, err}:
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, srv)
		snd, err := s.DialBulk(ctx, srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, snd)
		if err := snd.Send(ctx, total, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-ended:
			if got.err != nil || got.n != total {
				t.Fatalf("the sink read %d bytes, %v; want %d", got.n, got.err, total)
			}
		case <-ctx.Done():
			t.Fatal("the transfer did not end")
		}
	})
}
