package system_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/harness"
	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/all"
)

// eachQueue runs test on every queue stack that can run here, the
// replicated ones too, on a fresh queue storing under a test directory.
func eachQueue(t *testing.T, test func(t *testing.T, ctx context.Context, q system.QueueSystem, addr string)) {
	for _, q := range append(all.Queues(), harness.ClusterQueues()...) {
		t.Run(q.Name(), func(t *testing.T) {
			if why := q.Available(); why != "" {
				t.Skip(why)
			}
			ctx := testContext(t)
			srv, err := q.StartQueue(ctx, t.TempDir(), 64)
			if err != nil {
				t.Fatal(err)
			}
			closeWith(t, srv)
			test(t, ctx, q, srv.Addr())
		})
	}
}

// numbered is a 64-byte payload carrying i.
func numbered(i int) []byte {
	p := make([]byte, 64)
	binary.LittleEndian.PutUint64(p, uint64(i))
	return p
}

func TestQueueConfirmsEveryPublishAndTheConsumerTakesEachOnce(t *testing.T) {
	eachQueue(t, func(t *testing.T, ctx context.Context, q system.QueueSystem, addr string) {
		const sequential, async = 20, 30
		confirms := make(chan error, async)
		prod, err := q.DialProducer(ctx, addr, func(err error) { confirms <- err })
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, prod)
		for i := range sequential {
			if err := prod.Publish(ctx, numbered(i)); err != nil {
				t.Fatalf("publishing %d: %v", i, err)
			}
		}
		// One buffer for every asynchronous publish, rewritten as soon as
		// PublishAsync returns: the payload is the caller's again by then.
		reused := make([]byte, 64)
		for i := range async {
			copy(reused, numbered(sequential+i))
			if err := prod.PublishAsync(ctx, reused); err != nil {
				t.Fatalf("publishing %d asynchronously: %v", sequential+i, err)
			}
		}
		clear(reused)
		for i := range async {
			select {
			case err := <-confirms:
				if err != nil {
					t.Fatalf("confirm %d: %v", i, err)
				}
			case <-ctx.Done():
				t.Fatalf("%d of %d asynchronous publishes were confirmed", i, async)
			}
		}

		if why := system.ConsumerMissing(q); why != "" {
			// A reference without a consumer: confirming is all it does.
			if cons, err := q.DialConsumer(ctx, addr, 64, func([]byte) {}); err == nil {
				_ = cons.Close()
				t.Fatalf("a stack without a consumer (%s) dialled one", why)
			}
			return
		}

		var mu sync.Mutex
		seen := map[uint64]int{}
		all := make(chan struct{})
		cons, err := q.DialConsumer(ctx, addr, 64, func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			if len(p) != 64 || !bytes.Equal(p[8:], make([]byte, 56)) {
				t.Errorf("a payload of %d bytes arrived altered", len(p))
				return
			}
			seen[binary.LittleEndian.Uint64(p)]++
			if len(seen) == sequential+async {
				close(all)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		closeWith(t, cons)
		select {
		case <-all:
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("the consumer took %d of %d messages", len(seen), sequential+async)
		}
		mu.Lock()
		defer mu.Unlock()
		for i, n := range seen {
			if i >= sequential+async || n != 1 {
				t.Errorf("message %d arrived %d times", i, n)
			}
		}
	})
}
