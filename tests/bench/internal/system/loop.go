package system

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Loops are the goroutines of one server or receiver (accept loops, read
// loops), stopped together.
type Loops struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewLoops returns an empty set of loops.
func NewLoops() *Loops {
	ctx, cancel := context.WithCancel(context.Background())
	return &Loops{ctx: ctx, cancel: cancel}
}

// Go starts fn with a context that Stop cancels. fn must return soon after
// that context ends, or after the resource it blocks on is closed.
func (l *Loops) Go(fn func(ctx context.Context)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		fn(l.ctx)
	}()
}

// Stop cancels the loops' context and waits for them to return. unblock,
// when not nil, runs in between: it closes what a loop may be blocked on
// without watching its context.
func (l *Loops) Stop(unblock func()) {
	l.cancel()
	if unblock != nil {
		unblock()
	}
	l.wg.Wait()
}

// CloseAll closes every closer and joins their errors.
func CloseAll[C io.Closer](closers []C) error {
	var errs []error
	for _, c := range closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
