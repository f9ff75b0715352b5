package main

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"slices"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// reporterObj is the receiving side of a report order. Closing it
// unfinished finishes it, so the sender's cursors end rather than wait for
// the connection to go.
type reporterObj struct {
	scope
	r *weida.Reporter
}

func (*reporterObj) role() role { return roleReporter }
func (r *reporterObj) release() {
	r.closeWith(func() { _ = r.r.Finish() }) // NoReply once finished: nothing to do
}

// newReporter stores r as a reporter handle; nil (nothing ordered) is 0.
func newReporter(owner *runtimeRef, r *weida.Reporter) uint64 {
	if r == nil {
		return 0
	}
	return handles.insert(&reporterObj{scope: newScope(owner), r: r})
}

// inOrder copies a borrowed report order. The library judges the levels
// and the mode (WEIDA_EPROTOCOL); this only refuses what cannot be read.
func inOrder(levels *C.uint64_t, n C.size_t, mode C.int) (weida.ReportOrder, error) {
	order := weida.ReportOrder{Mode: weida.ReportMode(uint64(int64(mode)))}
	if n == 0 {
		return order, nil
	}
	if levels == nil {
		return order, invalid("levels is NULL but nlevels is not 0")
	}
	if uint64(n) > math.MaxInt/8 {
		return order, invalid("nlevels is larger than the library can address")
	}
	order.Levels = slices.Clone(unsafe.Slice((*uint64)(unsafe.Pointer(levels)), int(n)))
	return order, nil
}

//export weida_reporter_report
func weida_reporter_report(h C.weida_reporter_t, level, offset C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	r, err := lookup[*reporterObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if err := r.r.Report(uint64(level), uint64(offset)); err != nil {
		return fail(err)
	}
	return codeOK
}

//export weida_reporter_finish
func weida_reporter_finish(h C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	r, err := lookup[*reporterObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if err := r.r.Finish(); err != nil {
		return fail(err)
	}
	return codeOK
}

//export weida_reporter_levels
func weida_reporter_levels(h C.weida_reporter_t, levels *C.uint64_t, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*n = 0
	r, err := lookup[*reporterObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	return outWords(n, capacity, wordsOut{"levels", levels, r.r.Levels()})
}

//export weida_reporter_mode
func weida_reporter_mode(h C.weida_reporter_t, mode *C.int) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), mode, "mode", func(r *reporterObj) (uint64, error) { return uint64(r.r.Mode()), nil })
}
