package transport

import (
	"context"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// localSlots counts the live streams one side of a local connection opened
// and the reverse connections it keeps parked at the peer (a unix dialling
// side), together bounded by MaxLocalStreams: each is one OS connection the
// peer holds for this side. An open or a park at the cap waits for a
// release.
type localSlots struct {
	mu      sync.Mutex
	n       int           // live streams opened
	parked  int           // reverse connections parked, no stream on them yet
	changed chan struct{} // closed and replaced on every release
}

func (ls *localSlots) init() { ls.changed = make(chan struct{}) }

// acquire takes a slot for a stream, waiting while all are taken, until
// ctx or the connection (gone) ends.
func (ls *localSlots) acquire(ctx context.Context, gone <-chan struct{}) error {
	return ls.take(ctx, gone, &ls.n)
}

// acquireParked takes a slot for a reverse connection about to be parked,
// waiting while all are taken, until the connection ends.
func (ls *localSlots) acquireParked(gone <-chan struct{}) error {
	return ls.take(context.Background(), gone, &ls.parked)
}

func (ls *localSlots) take(ctx context.Context, gone <-chan struct{}, count *int) error {
	for {
		ls.mu.Lock()
		if ls.n+ls.parked < MaxLocalStreams {
			*count++
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

func (ls *localSlots) release() { ls.give(&ls.n) }

// releaseParked gives back a parked connection's slot: the peer opened a
// stream on it (its own slot counts that now), or it is gone.
func (ls *localSlots) releaseParked() { ls.give(&ls.parked) }

func (ls *localSlots) give(count *int) {
	ls.mu.Lock()
	*count--
	close(ls.changed)
	ls.changed = make(chan struct{})
	ls.mu.Unlock()
}

// parkedNow is the number of reverse connections parked.
func (ls *localSlots) parkedNow() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.parked
}

// awaitIdle waits until no stream is live: the peer completed every stream.
// Parked connections carry no stream and are not waited for.
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
