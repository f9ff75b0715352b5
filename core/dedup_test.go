package weida_test

import (
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/transport"
)

// TestDedupSuppressesInsideTheWindowAndPassesAfter sends one identity
// three times: a repeat inside the window is read and discarded (the
// sender still gets its receipt) and counted; after the window it is
// delivered again. Nothing is suppressed unless Bounded was agreed.
func TestDedupSuppressesInsideTheWindowAndPassesAfter(t *testing.T) {
	const window = time.Minute
	tests := []struct {
		name       string
		set        guarantee.Set
		suppresses bool
	}{
		{"bounded alone", guarantee.Set{Deduplication: guarantee.DedupBounded, DedupWindow: window}, true},
		{"bounded with reassembly", guarantee.Set{Ordering: guarantee.PerProducerReassemble,
			Deduplication: guarantee.DedupBounded, DedupWindow: window}, true},
		{"detect without dedup", seqDetect, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := guaranteeServe(t, weida.Config{Guarantees: tc.set})
			start := time.Now()
			var elapsed atomic.Int64 // the test's clock, moved by hand
			weida.SetDedupClock(srv.rt, func() time.Time { return start.Add(time.Duration(elapsed.Load())) })
			c := seqWireSender(t, srv, tc.set)

			dedupSend(t, c, 0)
			if n, _ := dedupAccept(t, srv); n != 0 {
				t.Fatalf("first arrival: %d", n)
			}
			dedupSend(t, c, 0) // the repeat, inside the window
			if tc.suppresses {
				pubsubAwait(t, "the repeat to be suppressed", func() bool { return srv.rt.SuppressedDuplicates() == 1 })
			} else if n, _ := dedupAccept(t, srv); n != 0 {
				t.Fatalf("the repeat arrived as %d", n)
			}
			dedupSend(t, c, 1)
			if n, _ := dedupAccept(t, srv); n != 1 {
				t.Fatalf("after the repeat the application got %d, want 1", n)
			}
			elapsed.Store(int64(window))
			dedupSend(t, c, 0) // the same identity once the window passed
			if n, _ := dedupAccept(t, srv); n != 0 {
				t.Fatalf("after the window the application got %d, want 0", n)
			}
			want := uint64(0)
			if tc.suppresses {
				want = 1
			}
			if got := srv.rt.SuppressedDuplicates(); got != want {
				t.Fatalf("suppressed %d, want %d", got, want)
			}
		})
	}
}

// dedupSend sends transfer n and waits for its transport receipt, which a
// suppressed repeat gets like any other.
func dedupSend(t *testing.T, c *transport.Conn, n uint64) {
	t.Helper()
	r, err := seqWireSend(ctxFor(t), c, "", n)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
		if err := r.Err(); err != nil {
			t.Fatalf("receipt of %d: %v", n, err)
		}
	case <-ctxFor(t).Done():
		t.Fatalf("no receipt for %d", n)
	}
}

// dedupAccept accepts one transfer and returns its number.
func dedupAccept(t *testing.T, srv *guaranteeServer) (uint64, bool) {
	t.Helper()
	meta, _ := seqAccept(t, srv.a)
	return meta.Sequence()
}
