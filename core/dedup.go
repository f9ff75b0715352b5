package weida

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/weida-go/weida/core/transport"
)

// dedupState is what a runtime's connections share for Bounded
// deduplication (SEMANTICS.md §4.2): the count of suppressed repeats and
// the clock of the window. The zero value counts from 0 on the wall clock.
type dedupState struct {
	suppressed atomic.Uint64
	now        atomic.Pointer[func() time.Time] // nil: time.Now; tests substitute a clock
}

func (d *dedupState) clock() time.Time {
	if now := d.now.Load(); now != nil {
		return (*now)()
	}
	return time.Now()
}

// SuppressedDuplicates is the number of one-way transfers this runtime read
// and discarded as repeats within the Bounded deduplication window: the
// sender got its ordinary receipt and the application never saw them.
func (rt *Runtime) SuppressedDuplicates() uint64 { return rt.dedup.suppressed.Load() }

// dedupDiscard reads a suppressed repeat to its end and drops it. Reading
// it whole rather than refusing it gives the sender its ordinary receipt:
// deduplication saves the application, not the bandwidth.
func (rt *Runtime) dedupDiscard(in *transport.InStream) {
	rt.dedup.suppressed.Add(1)
	_, _ = io.Copy(io.Discard, in)
}
