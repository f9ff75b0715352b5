package ctxwatch

import (
	"context"
	"testing"
)

// abandonSignal records that its work was abandoned.
type abandonSignal chan struct{}

func (s abandonSignal) Abandon() { close(s) }

func (s abandonSignal) abandoned() bool {
	select {
	case <-s:
		return true
	default:
		return false
	}
}

// TestAbandon covers what one entry sees: work that leaves
// before its context ends is left alone, work still waiting is abandoned
// and told so, and a context that cannot end arms nothing.
func TestAbandon(t *testing.T) {
	cases := []struct {
		name         string
		ctx          func() (context.Context, context.CancelFunc)
		endFirst     bool // the context ends before the work leaves
		wantKept     bool // what unwatch reports
		wantAbandons bool
	}{
		{"left before the end", cancelable, false, true, false},
		{"ended while waiting", cancelable, true, false, true},
		{"cannot end", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }, false, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ws Set
			ctx, cancel := tc.ctx()
			defer cancel()
			on := make(abandonSignal)
			var e Entry
			ws.Watch(ctx, &e, on)
			if tc.endFirst {
				cancel()
				<-on // abandon runs on a goroutine of its own
			}
			if kept := ws.Unwatch(&e); kept != tc.wantKept {
				t.Fatalf("unwatch = %v, want %v", kept, tc.wantKept)
			}
			cancel()
			if got := on.abandoned(); got != tc.wantAbandons {
				t.Fatalf("abandoned = %v, want %v", got, tc.wantAbandons)
			}
		})
	}
}

// TestReuse checks that a context used for one call keeps no
// registration, that calls under one context then share one, that a new
// context takes its place, and that an ended context's registration is
// never reused.
func TestReuse(t *testing.T) {
	var ws Set
	first, endFirst := cancelable()
	defer endFirst()
	var a, b Entry
	ws.Watch(first, &a, make(abandonSignal))
	once := a.w
	ws.Unwatch(&a)
	if ws.cached != nil || once.stop() {
		t.Fatalf("a context seen once kept an armed registration")
	}

	ws.Watch(first, &a, make(abandonSignal))
	ws.Watch(context.WithValue(first, struct{}{}, 1), &b, make(abandonSignal)) // same Done: same registration
	if a.w != b.w || ws.cached != a.w {
		t.Fatalf("two calls under one context got registrations %p and %p, cached %p", a.w, b.w, ws.cached)
	}
	ws.Unwatch(&a)
	ws.Unwatch(&b)
	kept := ws.cached

	second, endSecond := cancelable()
	defer endSecond()
	for range 2 {
		ws.Watch(second, &a, make(abandonSignal))
		ws.Unwatch(&a)
	}
	if ws.cached == kept || ws.cached.done != second.Done() {
		t.Fatalf("a new context used twice did not take the cached place")
	}
	if kept.stop() {
		t.Fatalf("the replaced idle registration is still armed")
	}

	endSecond()
	on := make(abandonSignal)
	ws.Watch(second, &b, on) // ended: a fresh registration fires at once
	<-on
	if ws.Unwatch(&b) {
		t.Fatalf("work under an ended context was not reported abandoned")
	}
}

// TestClose checks that a closed endpoint keeps no registration
// but still abandons work under a context that ends.
func TestClose(t *testing.T) {
	var ws Set
	ctx, cancel := cancelable()
	defer cancel()
	var e Entry
	for range 2 { // the second call keeps its registration
		ws.Watch(ctx, &e, make(abandonSignal))
		ws.Unwatch(&e)
	}
	cached := ws.cached
	ws.Close()
	if cached == nil || ws.cached != nil || cached.stop() {
		t.Fatalf("close left the cached registration in place or armed")
	}
	on := make(abandonSignal)
	ws.Watch(ctx, &e, on)
	if ws.cached != nil {
		t.Fatalf("a closed endpoint cached a registration")
	}
	cancel()
	<-on
	if ws.Unwatch(&e) {
		t.Fatalf("unwatch = true after the context ended, want false")
	}
}

func cancelable() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

type ctxKey struct{}

// Work waiting when its context ends is abandoned whichever registration
// covers it: a new one, the kept one of earlier calls, or the one of a
// context sharing its Done channel (WithValue); work that left is not.
func TestAbandonsWhateverRegistrationCoversIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		earlier int // calls under ctx that leave before the one that is abandoned
		waitOn  func(ctx context.Context) context.Context
	}{
		{"a first call", 0, func(ctx context.Context) context.Context { return ctx }},
		{"a call under the kept registration", 2, func(ctx context.Context) context.Context { return ctx }},
		{"a call under a context derived with WithValue", 2, func(ctx context.Context) context.Context {
			return context.WithValue(ctx, ctxKey{}, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ws Set
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			left := make(abandonSignal)
			for range tc.earlier {
				var e Entry
				ws.Watch(ctx, &e, left)
				ws.Unwatch(&e)
			}
			var e Entry
			waiting := make(abandonSignal)
			if !ws.Watch(tc.waitOn(ctx), &e, waiting) {
				t.Fatal("Watch refused a fresh entry under a context that can end")
			}
			cancel()
			<-waiting
			if ws.Unwatch(&e) {
				t.Error("Unwatch reported work that was abandoned as left alone")
			}
			if left.abandoned() {
				t.Error("work that left before the end was abandoned")
			}
		})
	}
}

// Entries leave the waiting list in any order, and those left are still
// abandoned; an entry that already waits is not watched twice.
func TestEntriesLeaveInAnyOrder(t *testing.T) {
	var ws Set
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entries := make([]Entry, 4)
	signals := make([]abandonSignal, len(entries))
	for i := range entries {
		signals[i] = make(abandonSignal)
		ws.Watch(ctx, &entries[i], signals[i])
	}
	if ws.Watch(ctx, &entries[0], make(abandonSignal)) {
		t.Fatal("an entry already waiting was watched a second time")
	}
	for _, i := range []int{1, 3} {
		if !ws.Unwatch(&entries[i]) {
			t.Fatalf("entry %d left before the end but was reported abandoned", i)
		}
	}
	cancel()
	for _, i := range []int{0, 2} {
		<-signals[i]
		ws.Unwatch(&entries[i])
	}
	for _, i := range []int{1, 3} {
		if signals[i].abandoned() {
			t.Errorf("entry %d left before the end but was abandoned", i)
		}
	}
}
