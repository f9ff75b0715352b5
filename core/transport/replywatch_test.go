package transport

import (
	"context"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
)

// stoppedHalf is a bidiHalf that only records the CancelRead an abandoned
// reply gets.
type stoppedHalf struct {
	bidiHalf
	stopped chan quic.StreamErrorCode
}

func newStoppedHalf() *ReplyHalf {
	return &ReplyHalf{s: &stoppedHalf{stopped: make(chan quic.StreamErrorCode, 1)}}
}

func (h *stoppedHalf) CancelRead(code quic.StreamErrorCode) { h.stopped <- code }

func awaitStopped(t *testing.T, r *ReplyHalf) {
	t.Helper()
	select {
	case <-r.s.(*stoppedHalf).stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting reply was not abandoned when its context ended")
	}
}

func notStopped(t *testing.T, r *ReplyHalf) {
	t.Helper()
	select {
	case <-r.s.(*stoppedHalf).stopped:
		t.Fatal("a reply that was not waiting was abandoned")
	default:
	}
}

type ctxKey struct{}

// A reply waiting when its context ends is abandoned, whichever
// registration covers it: a new one, the cached one of an earlier wait, or
// the one of a context sharing its Done channel.
func TestReplyWatchAbandonsWaitingReplies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(ws *replyWatches, ctx context.Context) // waits that end before the one that is abandoned
		waitOn func(ctx context.Context) context.Context
	}{
		{"a first wait", func(*replyWatches, context.Context) {}, func(ctx context.Context) context.Context { return ctx }},
		{"a wait under the cached registration", func(ws *replyWatches, ctx context.Context) {
			r := newStoppedHalf()
			ws.unwatch(ws.watch(ctx, r), r)
		}, func(ctx context.Context) context.Context { return ctx }},
		{"a wait under a context derived with WithValue", func(ws *replyWatches, ctx context.Context) {
			r := newStoppedHalf()
			ws.unwatch(ws.watch(ctx, r), r)
		}, func(ctx context.Context) context.Context { return context.WithValue(ctx, ctxKey{}, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ws replyWatches
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tc.before(&ws, ctx)
			left, waiting := newStoppedHalf(), newStoppedHalf()
			ws.unwatch(ws.watch(tc.waitOn(ctx), left), left)
			w := ws.watch(tc.waitOn(ctx), waiting)
			cancel()
			awaitStopped(t, waiting)
			ws.unwatch(w, waiting)
			notStopped(t, left)
		})
	}
}

// Only the latest context's registration is kept between waits; one that
// is replaced, or outlives its connection, is stopped, so the context no
// longer holds the connection.
func TestReplyWatchKeepsOneRegistration(t *testing.T) {
	var ws replyWatches
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newStoppedHalf()
	w1 := ws.watch(ctx, r)
	ws.unwatch(w1, r)
	if ws.cached != w1 {
		t.Fatal("the registration was not kept for the next wait")
	}
	other, cancelOther := context.WithCancel(context.Background())
	defer cancelOther()
	w2 := ws.watch(other, r)
	ws.unwatch(w2, r)
	if w1.stop() {
		t.Fatal("the replaced registration was still live")
	}
	ws.close()
	if w2.stop() {
		t.Fatal("the cached registration was still live after the connection ended")
	}
	w3 := ws.watch(other, r)
	ws.unwatch(w3, r)
	if ws.cached != nil || w3.stop() {
		t.Fatal("a registration made after the connection ended was kept")
	}
}

// Halves leave the waiting list in any order, and the ones left are still
// abandoned.
func TestReplyWatchLeavesInAnyOrder(t *testing.T) {
	var ws replyWatches
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	halves := []*ReplyHalf{newStoppedHalf(), newStoppedHalf(), newStoppedHalf(), newStoppedHalf()}
	watches := make([]*replyWatch, len(halves))
	for i, r := range halves {
		watches[i] = ws.watch(ctx, r)
	}
	for _, i := range []int{1, 3} {
		ws.unwatch(watches[i], halves[i])
	}
	cancel()
	for _, i := range []int{0, 2} {
		awaitStopped(t, halves[i])
	}
	for _, i := range []int{1, 3} {
		notStopped(t, halves[i])
	}
}
