package transport

import (
	"context"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// localSlots counts the live streams one side of a local connection opened,
// bounded by MaxLocalStreams: an open at the cap waits for a release.
type localSlots struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed and replaced on every release
}

func (ls *localSlots) init() { ls.changed = make(chan struct{}) }

// acquire takes a slot, waiting while all are taken, until ctx or the
// connection (gone) ends.
func (ls *localSlots) acquire(ctx context.Context, gone <-chan struct{}) error {
	for {
		ls.mu.Lock()
		if ls.n < MaxLocalStreams {
			ls.n++
			ls.mu.Unlock()
			return nil
		}
		changed := ls.changed
		ls.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return errs.Wrap(errs.KindCanceled, ctx.Err(), "open abandoned at max_local_streams")
		case <-gone:
			return errs.New(errs.KindConnectionLost, "connection lost")
		}
	}
}

func (ls *localSlots) release() {
	ls.mu.Lock()
	ls.n--
	close(ls.changed)
	ls.changed = make(chan struct{})
	ls.mu.Unlock()
}

// awaitIdle waits until no slot is taken: the peer completed every stream.
func (ls *localSlots) awaitIdle(ctx context.Context, gone <-chan struct{}) error {
	for {
		ls.mu.Lock()
		n, changed := ls.n, ls.changed
		ls.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return errs.Wrap(errs.KindCanceled, ctx.Err(), "the peer had not consumed every stream")
		case <-gone:
			return errs.New(errs.KindConnectionLost, "connection lost")
		}
	}
}
