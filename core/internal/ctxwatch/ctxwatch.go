// Package ctxwatch abandons work when the context it runs under ends,
// without a context.AfterFunc per call.
//
// Work a connection or an endpoint does under a context that can end is
// abandoned when it ends (its streams reset or refused). A context.AfterFunc
// per call costs three allocations and two passes through the parent
// context's lock; but an owner usually runs call after call under one
// context (a server loop's, a client's request scope), so a Set keeps the
// registration of the latest context it saw and reuses it while that
// context lives. Contexts are told apart by their Done channel, which is
// what ending means (a context derived with WithValue shares its parent's).
// Only a context seen twice running is kept: one made for a single call (a
// per-call timeout) is canceled right after it, and a kept registration
// would then cost a goroutine to fire for nothing.
package ctxwatch

import (
	"context"
	"sync"
)

// Abandoner is work that stops when its context ends: Abandon runs on a
// goroutine of its own, at most once per Watch.
type Abandoner interface{ Abandon() }

// Entry is one piece of work waiting under a registration. It lives inside
// the object whose work it guards, so watching allocates nothing; its zero
// value is ready, and one Entry serves one Watch at a time.
type Entry struct {
	w    *registration // the registration it waits under; nil when none
	on   Abandoner
	slot int // its index in w.waiting plus one; 0 once it left or was abandoned
}

// registration is one context.AfterFunc: the work waiting under contexts
// that end with done.
type registration struct {
	done    <-chan struct{}
	stop    func() bool
	waiting []*Entry
	fired   bool
}

// Set is one owner's registrations (a connection's, an endpoint's); its zero
// value is ready. cached is the one kept for the next call under its
// context; any other is stopped once its last waiter leaves. lastDone is the
// Done channel of the latest context seen. Once the owner closed the Set
// nothing is kept, so no context holds on to it.
type Set struct {
	mu       sync.Mutex
	cached   *registration
	lastDone <-chan struct{}
	closed   bool
}

// Watch makes e wait under ctx until Unwatch: when ctx ends first, on is
// abandoned (on a goroutine of its own). It reports false, doing nothing,
// for a context that cannot end (it needs no watcher) and for an e that
// already waits (a misuse: the first wait covers the same work).
func (ws *Set) Watch(ctx context.Context, e *Entry, on Abandoner) bool {
	done := ctx.Done()
	if done == nil {
		return false
	}
	var idle *registration // a cached registration replaced while nobody used it
	ws.mu.Lock()
	if e.w != nil {
		ws.mu.Unlock()
		return false
	}
	w := ws.cached
	if w == nil || w.done != done || w.fired {
		w = &registration{done: done}
		// The callback runs on a goroutine of its own, never inside
		// AfterFunc, so registering under ws.mu cannot deadlock with fire.
		w.stop = context.AfterFunc(ctx, func() { ws.fire(w) })
		if !ws.closed {
			if ws.lastDone == done { // seen twice running: keep it
				if old := ws.cached; old != nil && len(old.waiting) == 0 {
					idle = old
				}
				ws.cached = w
			}
			ws.lastDone = done
		}
	}
	e.on = on
	w.waiting = append(w.waiting, e)
	e.w, e.slot = w, len(w.waiting)
	ws.mu.Unlock()
	if idle != nil {
		idle.stop()
	}
	return true
}

// Unwatch ends e's wait. It reports false when the context ended first and
// e's work was (or is being) abandoned, as the stop of context.AfterFunc
// does; true when e was left alone, or did not wait.
func (ws *Set) Unwatch(e *Entry) bool {
	ws.mu.Lock()
	w := e.w
	if w == nil {
		ws.mu.Unlock()
		return true
	}
	e.w = nil
	kept := e.slot != 0 // fire empties the list it abandons
	if kept {
		i, last := e.slot-1, w.waiting[len(w.waiting)-1]
		w.waiting[i], last.slot = last, i+1
		w.waiting[len(w.waiting)-1] = nil
		w.waiting = w.waiting[:len(w.waiting)-1]
		e.slot = 0
	}
	unused := len(w.waiting) == 0 && ws.cached != w
	ws.mu.Unlock()
	if unused {
		w.stop()
	}
	return kept
}

// fire abandons everything waiting under w: its context ended.
func (ws *Set) fire(w *registration) {
	ws.mu.Lock()
	w.fired = true
	if ws.cached == w {
		ws.cached = nil
	}
	// Copied under the lock: an entry that leaves may be reused at once
	// for other work (a request read, then its reply written).
	abandon := make([]Abandoner, len(w.waiting))
	for i, e := range w.waiting {
		abandon[i] = e.on
		e.slot = 0
	}
	w.waiting = nil
	ws.mu.Unlock()
	for _, on := range abandon {
		on.Abandon()
	}
}

// Close stops the cached registration when nobody waits under it (a waiter
// still running stops it as it leaves) and keeps none from now on.
func (ws *Set) Close() {
	ws.mu.Lock()
	ws.closed = true
	w := ws.cached
	ws.cached, ws.lastDone = nil, nil
	idle := w != nil && len(w.waiting) == 0
	ws.mu.Unlock()
	if idle {
		w.stop()
	}
}
