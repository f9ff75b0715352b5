package transport

import (
	"context"
	"sync"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// A reply awaited under a context that can end is abandoned when it ends
// (STOP_SENDING CANCELED). Registering a callback on a context costs three
// allocations and two passes through the parent's lock, on every exchange;
// but a requester usually passes one context to exchange after exchange, so
// a connection keeps the registration of the latest context it saw and
// reuses it while that context lives. Contexts are told apart by their Done
// channel: its closing is what ending means, and a context derived with
// WithValue shares it with its parent.

// replyWatch is one registration: the replies waiting under contexts that
// end with done. Each waiting half knows its place in waiting (watchSlot),
// so leaving is a swap with the last, not a map operation.
type replyWatch struct {
	done    <-chan struct{}
	stop    func() bool
	waiting []*ReplyHalf
	fired   bool
}

// replyWatches is a connection's registrations. cached is the one kept for
// the next Recv under its context; any other is stopped once its last
// waiter leaves. Once the connection ended nothing is kept, so no context
// holds on to it.
type replyWatches struct {
	mu     sync.Mutex
	cached *replyWatch
	closed bool
}

// watch registers r as waiting under ctx, whose Done is not nil, and
// returns the registration to hand to unwatch; nil when r already waits
// (a second Recv at once, a misuse: the first one's registration covers
// the stream both read).
func (ws *replyWatches) watch(ctx context.Context, r *ReplyHalf) *replyWatch {
	done := ctx.Done()
	var idle *replyWatch // a cached registration replaced while nobody used it
	ws.mu.Lock()
	if r.watchSlot != 0 {
		ws.mu.Unlock()
		return nil
	}
	w := ws.cached
	if w == nil || w.done != done || w.fired {
		w = &replyWatch{done: done}
		// f runs on a goroutine of its own, never inside AfterFunc, so
		// registering under ws.mu cannot deadlock with fire.
		w.stop = context.AfterFunc(ctx, func() { ws.fire(w) })
		if !ws.closed {
			if old := ws.cached; old != nil && len(old.waiting) == 0 {
				idle = old
			}
			ws.cached = w
		}
	}
	w.waiting = append(w.waiting, r)
	r.watchSlot = int32(len(w.waiting)) // its index plus one
	ws.mu.Unlock()
	if idle != nil {
		idle.stop()
	}
	return w
}

// unwatch ends r's wait under w (nil: watch registered nothing).
func (ws *replyWatches) unwatch(w *replyWatch, r *ReplyHalf) {
	if w == nil {
		return
	}
	ws.mu.Lock()
	if i := int(r.watchSlot) - 1; i >= 0 { // fire may have emptied the list
		last := w.waiting[len(w.waiting)-1]
		w.waiting[i], last.watchSlot = last, int32(i+1)
		w.waiting[len(w.waiting)-1] = nil
		w.waiting = w.waiting[:len(w.waiting)-1]
		r.watchSlot = 0
	}
	unused := len(w.waiting) == 0 && ws.cached != w
	ws.mu.Unlock()
	if unused {
		w.stop()
	}
}

// fire abandons every reply waiting under w: its context ended.
func (ws *replyWatches) fire(w *replyWatch) {
	ws.mu.Lock()
	w.fired = true
	if ws.cached == w {
		ws.cached = nil
	}
	halves := w.waiting
	w.waiting = nil
	for _, r := range halves {
		r.watchSlot = 0
	}
	ws.mu.Unlock()
	for _, r := range halves {
		r.s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
	}
}

// close stops the cached registration when nobody waits under it (a waiter
// still reading stops it as it leaves) and keeps none from now on.
func (ws *replyWatches) close() {
	ws.mu.Lock()
	ws.closed = true
	w := ws.cached
	ws.cached = nil
	idle := w != nil && len(w.waiting) == 0
	ws.mu.Unlock()
	if idle {
		w.stop()
	}
}
