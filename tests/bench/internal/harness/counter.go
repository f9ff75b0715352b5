package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// counter counts the messages a receiver got, checks their size, and
// wakes whoever waits for a count. Receivers may call it concurrently.
type counter struct {
	size int
	n    atomic.Int64
	wake chan struct{} // signalled (lossily) after every count

	mu  sync.Mutex
	err error // the first bad message
}

func newCounter(size int) *counter {
	return &counter{size: size, wake: make(chan struct{}, 1)}
}

// received is a system.StartSink callback.
func (c *counter) received(n int, err error) {
	if err == nil && n != c.size {
		err = fmt.Errorf("a message of %d bytes arrived, want %d", n, c.size)
	}
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	c.add(1)
}

// add counts k messages at once, for a receiver that sees bytes rather
// than messages (a `weida serve --sink` process's stdout).
func (c *counter) add(k int64) {
	c.n.Add(k)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *counter) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// await waits until target messages were counted. The count is read after
// every wake-up, and a wake-up is sent after every count, so none is lost.
func (c *counter) await(ctx context.Context, target int64) error {
	for c.n.Load() < target {
		select {
		case <-c.wake:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d messages arrived: %w", c.n.Load(), target, ctx.Err())
		}
	}
	return c.failure()
}
