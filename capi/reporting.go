package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"sync/atomic"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// The calls that order a report (sending side) or hand over the reporter
// that answers one (receiving side), for the patterns whose Go API has
// them: Push/Pull and PAIR, streamed transfers and requests.

// sendReportingCall sends one whole payload that orders a report; the
// result is its cursors handle (0 for an empty order).
func sendReportingCall(s scope, send func(context.Context, []byte, weida.ReportOrder) (*weida.Cursors, error),
	data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	p, err := inBytes(data, n, "data")
	if err != nil {
		return refused(err)
	}
	order, err := inOrder(levels, nlevels, mode)
	if err != nil {
		return refused(err)
	}
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		c, err := send(ctx, p, order)
		if err != nil {
			return 0, 0, err
		}
		return newCursors(s.owner, c), 0, nil
	})
}

// openReportingCall opens a streamed transfer that orders a report; its
// cursors come from weida_ostream_cursors.
func openReportingCall(s scope, open func(context.Context, weida.TransferMeta) (*weida.OutgoingTransfer, error),
	levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	order, err := inOrder(levels, nlevels, mode)
	if err != nil {
		return refused(err)
	}
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		t, err := open(ctx, weida.TransferMeta{Report: order})
		if err != nil {
			return 0, 0, err
		}
		return newOstream(s.owner, t), 0, nil
	})
}

// recvReportingCall receives one whole message under a ceiling: a is its
// msg handle, b the reporter handle (0 when nothing was ordered).
func recvReportingCall(s scope, recv func(context.Context, int64) ([]byte, weida.IncomingMeta, *weida.Reporter, error),
	maxBytes C.size_t) prepared {
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		body, meta, r, err := recv(ctx, ceiling(maxBytes))
		if err != nil {
			return 0, 0, err
		}
		return newMsg(body, meta), newReporter(s.owner, r), nil
	})
}

// reporterOnce hands a transfer's reporter out as a handle once: two
// handles on one reporter would let closing either finish it for both.
type reporterOnce struct{ taken atomic.Bool }

func (o *reporterOnce) take(owner *runtimeRef, get func() *weida.Reporter) uint64 {
	if o.taken.Swap(true) {
		return 0
	}
	return newReporter(owner, get())
}

// handOut answers a non-waiting getter that yields a handle (0 for none).
func handOut[T object, H word](h uint64, out *H, get func(T) uint64) C.int {
	if err := required(out, "out"); err != nil {
		return fail(err)
	}
	*out = 0
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	*out = H(get(o))
	return codeOK
}

func pusherSendReporting(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(uint64(h), func(p *pusherObj) prepared {
		return sendReportingCall(p.scope, p.p.SendReporting, data, n, levels, nlevels, mode)
	})
}

//export weida_pusher_send_reporting
func weida_pusher_send_reporting(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cursors *C.weida_cursors_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pusherSendReporting(h, data, n, levels, nlevels, mode), cursors, "cursors")
}

//export weida_pusher_send_reporting_async
func weida_pusher_send_reporting_async(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pusherSendReporting(h, data, n, levels, nlevels, mode), cb, user, op)
}

func pusherOpenReporting(h C.weida_pusher_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(uint64(h), func(p *pusherObj) prepared { return openReportingCall(p.scope, p.p.Open, levels, nlevels, mode) })
}

//export weida_pusher_open_reporting
func weida_pusher_open_reporting(h C.weida_pusher_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pusherOpenReporting(h, levels, nlevels, mode), out, "out")
}

//export weida_pusher_open_reporting_async
func weida_pusher_open_reporting_async(h C.weida_pusher_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pusherOpenReporting(h, levels, nlevels, mode), cb, user, op)
}

func pullerRecvReporting(h C.weida_puller_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(p *pullerObj) prepared { return recvReportingCall(p.scope, p.p.RecvReporting, maxBytes) })
}

//export weida_puller_recv_reporting
func weida_puller_recv_reporting(h C.weida_puller_t, maxBytes C.size_t, msg *C.weida_msg_t, reporter *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(pullerRecvReporting(h, maxBytes), msg, "msg", reporter, "reporter")
}

//export weida_puller_recv_reporting_async
func weida_puller_recv_reporting_async(h C.weida_puller_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pullerRecvReporting(h, maxBytes), cb, user, op)
}

func pairedSendReporting(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(uint64(h), func(p *pairedObj) prepared {
		return sendReportingCall(p.scope, p.p.SendReporting, data, n, levels, nlevels, mode)
	})
}

//export weida_paired_send_reporting
func weida_paired_send_reporting(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cursors *C.weida_cursors_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pairedSendReporting(h, data, n, levels, nlevels, mode), cursors, "cursors")
}

//export weida_paired_send_reporting_async
func weida_paired_send_reporting_async(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedSendReporting(h, data, n, levels, nlevels, mode), cb, user, op)
}

func pairedOpenReporting(h C.weida_paired_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return openReportingCall(p.scope, p.p.Open, levels, nlevels, mode) })
}

//export weida_paired_open_reporting
func weida_paired_open_reporting(h C.weida_paired_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pairedOpenReporting(h, levels, nlevels, mode), out, "out")
}

//export weida_paired_open_reporting_async
func weida_paired_open_reporting_async(h C.weida_paired_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedOpenReporting(h, levels, nlevels, mode), cb, user, op)
}

func pairedRecvReporting(h C.weida_paired_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return recvReportingCall(p.scope, p.p.RecvReporting, maxBytes) })
}

//export weida_paired_recv_reporting
func weida_paired_recv_reporting(h C.weida_paired_t, maxBytes C.size_t, msg *C.weida_msg_t, reporter *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(pairedRecvReporting(h, maxBytes), msg, "msg", reporter, "reporter")
}

//export weida_paired_recv_reporting_async
func weida_paired_recv_reporting_async(h C.weida_paired_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedRecvReporting(h, maxBytes), cb, user, op)
}

//export weida_ostream_cursors
func weida_ostream_cursors(h C.weida_ostream_t, out *C.weida_cursors_t) (rc C.int) {
	defer recoverInto(&rc)
	// The Go transfer hands its cursors out once already.
	return handOut(uint64(h), out, func(o *ostreamObj) uint64 { return newCursors(o.owner, o.t.Cursors()) })
}

//export weida_istream_reporter
func weida_istream_reporter(h C.weida_istream_t, out *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return handOut(uint64(h), out, func(i *istreamObj) uint64 { return i.reporter.take(i.owner, i.t.Reporter) })
}

//export weida_request_reporter
func weida_request_reporter(h C.weida_request_t, out *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return handOut(uint64(h), out, func(r *requestObj) uint64 { return r.reporter.take(r.owner, r.req.Reporter) })
}
