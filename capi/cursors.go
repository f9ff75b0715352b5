package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// cursorsObj is the sending side's view of a report it ordered. The Go
// Changed is for one reader, and C may call from any thread, so waits take
// turns; a wait that is cancelled while queued for its turn never runs.
// Closing the handle stops watching (the receiver's report ends silently).
type cursorsObj struct {
	scope
	c    *weida.Cursors
	turn chan struct{} // holds a token while a Changed runs
}

func (*cursorsObj) role() role { return roleCursors }
func (c *cursorsObj) release() { c.closeWith(func() { _ = c.c.Close() }) }

// newCursors stores c as a cursors handle; nil (nothing ordered) is 0.
func newCursors(owner *runtimeRef, c *weida.Cursors) uint64 {
	if c == nil {
		return 0
	}
	return handles.insert(&cursorsObj{scope: newScope(owner), c: c, turn: make(chan struct{}, 1)})
}

// errDeadlinePassed marks a changed wait that ran out of its own time, as
// opposed to one cancelled or closed: the first is WEIDA_ETIMEDOUT.
var errDeadlinePassed = errors.New("the deadline passed")

// changedDeadline converts weida_cursors_changed's seconds. A negative
// number waits without a deadline (SURFACE.md §3.7): bounded is false.
func changedDeadline(secs C.double) (d time.Duration, bounded bool, err error) {
	if f := float64(secs); !math.IsNaN(f) && f < 0 {
		return 0, false, nil
	}
	d, err = seconds(secs, "seconds")
	return d, err == nil, err
}

func prepareCursorsChanged(h C.weida_cursors_t, secs C.double) prepared {
	c, err := lookup[*cursorsObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	d, bounded, err := changedDeadline(secs)
	if err != nil {
		return refused(err)
	}
	return c.prepare(func(ctx context.Context) (uint64, uint64, error) {
		if bounded {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, d, errDeadlinePassed)
			defer cancel()
		}
		select {
		case c.turn <- struct{}{}:
		case <-ctx.Done():
			return 0, 0, waitEnded(ctx, nil)
		}
		defer func() { <-c.turn }()
		_, more, err := c.c.Changed(ctx)
		switch {
		case err != nil:
			return 0, 0, waitEnded(ctx, err)
		case c.ctx.Err() != nil:
			// Closing the handle also ends the report; the closer's wait is
			// told it was canceled, whichever of the two it saw first.
			return 0, 0, waitEnded(ctx, nil)
		case !more:
			return 0, 0, abiErr(codeEnd, "the report ended: no more cursors will come")
		}
		return 0, 0, nil
	})
}

// waitEnded says why a changed wait stopped early: its own deadline
// (WEIDA_ETIMEDOUT, which does not end the report) or a cancel or close.
func waitEnded(ctx context.Context, err error) error {
	if context.Cause(ctx) == errDeadlinePassed {
		return abiErr(codeTimedOut, "the deadline passed before the cursors moved (the report goes on)")
	}
	if err != nil {
		return err
	}
	return &weida.Error{Kind: weida.KindCanceled, Msg: "the wait for the cursors was canceled"}
}

//export weida_cursors_changed
func weida_cursors_changed(h C.weida_cursors_t, secs C.double) (rc C.int) {
	defer recoverInto(&rc)
	return block0(prepareCursorsChanged(h, secs))
}

//export weida_cursors_changed_async
func weida_cursors_changed_async(h C.weida_cursors_t, secs C.double, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareCursorsChanged(h, secs), cb, user, op)
}

//export weida_cursors_offset
func weida_cursors_offset(h C.weida_cursors_t, level C.uint64_t, offset *C.uint64_t, present *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(offset, "offset"); err != nil {
		return fail(err)
	}
	if err := required(present, "present"); err != nil {
		return fail(err)
	}
	*offset, *present = 0, 0
	c, err := lookup[*cursorsObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if v, ok := c.c.Offset(uint64(level)); ok {
		*offset, *present = C.uint64_t(v), 1
	}
	return codeOK
}

//export weida_cursors_snapshot
func weida_cursors_snapshot(h C.weida_cursors_t, levels, offsets *C.uint64_t, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*n = 0
	c, err := lookup[*cursorsObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	snap := c.c.Snapshot()
	keys := slices.Sorted(maps.Keys(snap))
	values := make([]uint64, len(keys))
	for i, k := range keys {
		values[i] = snap[k]
	}
	return outWords(n, capacity, wordsOut{"levels", levels, keys}, wordsOut{"offsets", offsets, values})
}

// wordsOut is one caller-owned uint64 array and what goes into it.
type wordsOut struct {
	name string
	dst  *C.uint64_t
	src  []uint64
}

// outWords fills caller-owned arrays of capacity entries each (parallel
// arrays of one length) with the rule of text out: *n is the full count,
// and a short capacity fills what fits and returns WEIDA_ETRUNCATED. An
// array may be NULL only when capacity is 0.
func outWords(n *C.size_t, capacity C.size_t, arrays ...wordsOut) C.int {
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*n = 0
	count := 0
	for _, a := range arrays {
		if capacity > 0 && a.dst == nil {
			return fail(invalid(a.name + " is NULL but the capacity is not 0"))
		}
		count = len(a.src)
	}
	if capacity > 0 {
		fits := int(min(uint64(capacity), uint64(count)))
		for _, a := range arrays {
			copy(unsafe.Slice((*uint64)(unsafe.Pointer(a.dst)), fits), a.src)
		}
	}
	*n = C.size_t(count)
	if uint64(count) > uint64(capacity) {
		return fail(abiErr(codeTruncated, "the arrays need room for "+strconv.Itoa(count)+" entries"))
	}
	return codeOK
}
