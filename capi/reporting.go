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

// reportSender is the Go side of an endpoint whose sends can order a
// report: *weida.Pusher and *weida.Paired.
type reportSender interface {
	SendReporting(context.Context, []byte, weida.ReportOrder) (*weida.Cursors, error)
	Open(context.Context, weida.TransferMeta) (*weida.OutgoingTransfer, error)
}

// reportReceiver is the Go side of an endpoint whose receives hand over the
// reporter that answers an order: *weida.Puller, *weida.Paired and
// *weida.Subscriber.
type reportReceiver interface {
	RecvReporting(context.Context, int64) ([]byte, weida.IncomingMeta, *weida.Reporter, error)
}

// sendsReports and receivesReports are the handle objects over them, so
// one call serves every pattern that has it.
type sendsReports interface {
	object
	reportSender() (scope, reportSender)
}

type receivesReports interface {
	object
	reportReceiver() (scope, reportReceiver)
}

func (p *pusherObj) reportSender() (scope, reportSender)     { return p.scope, p.p }
func (p *pairedObj) reportSender() (scope, reportSender)     { return p.scope, p.p }
func (p *pullerObj) reportReceiver() (scope, reportReceiver) { return p.scope, p.p }
func (p *pairedObj) reportReceiver() (scope, reportReceiver) { return p.scope, p.p }

// sendReporting sends one whole payload that orders a report on the T
// behind h; the result is its cursors handle (0 for an empty order).
func sendReporting[T sendsReports](h uint64, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(h, func(o T) prepared {
		s, sender := o.reportSender()
		p, err := inBytes(data, n, "data")
		if err != nil {
			return refused(err)
		}
		order, err := inOrder(levels, nlevels, mode)
		if err != nil {
			return refused(err)
		}
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
			c, err := sender.SendReporting(ctx, p, order)
			if err != nil {
				return 0, 0, err
			}
			return newCursors(s.owner, c), 0, nil
		})
	})
}

// openReporting opens a streamed transfer that orders a report on the T
// behind h; its cursors come from weida_ostream_cursors.
func openReporting[T sendsReports](h uint64, levels *C.uint64_t, nlevels C.size_t, mode C.int) prepared {
	return on(h, func(o T) prepared {
		s, sender := o.reportSender()
		order, err := inOrder(levels, nlevels, mode)
		if err != nil {
			return refused(err)
		}
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
			t, err := sender.Open(ctx, weida.TransferMeta{Report: order})
			if err != nil {
				return 0, 0, err
			}
			return newOstream(s.owner, t), 0, nil
		})
	})
}

// recvReporting receives one whole message under a ceiling on the T
// behind h: a is its msg handle, b the reporter handle (0 when nothing was
// ordered).
func recvReporting[T receivesReports](h uint64, maxBytes C.size_t) prepared {
	return on(h, func(o T) prepared {
		s, receiver := o.reportReceiver()
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
			body, meta, r, err := receiver.RecvReporting(ctx, ceiling(maxBytes))
			if err != nil {
				return 0, 0, err
			}
			return newMsg(body, meta), newReporter(s.owner, r), nil
		})
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

//export weida_pusher_send_reporting
func weida_pusher_send_reporting(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cursors *C.weida_cursors_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(sendReporting[*pusherObj](uint64(h), data, n, levels, nlevels, mode), cursors, "cursors")
}

//export weida_pusher_send_reporting_async
func weida_pusher_send_reporting_async(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(sendReporting[*pusherObj](uint64(h), data, n, levels, nlevels, mode), cb, user, op)
}

//export weida_pusher_open_reporting
func weida_pusher_open_reporting(h C.weida_pusher_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(openReporting[*pusherObj](uint64(h), levels, nlevels, mode), out, "out")
}

//export weida_pusher_open_reporting_async
func weida_pusher_open_reporting_async(h C.weida_pusher_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(openReporting[*pusherObj](uint64(h), levels, nlevels, mode), cb, user, op)
}

//export weida_puller_recv_reporting
func weida_puller_recv_reporting(h C.weida_puller_t, maxBytes C.size_t, msg *C.weida_msg_t, reporter *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(recvReporting[*pullerObj](uint64(h), maxBytes), msg, "msg", reporter, "reporter")
}

//export weida_puller_recv_reporting_async
func weida_puller_recv_reporting_async(h C.weida_puller_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(recvReporting[*pullerObj](uint64(h), maxBytes), cb, user, op)
}

//export weida_paired_send_reporting
func weida_paired_send_reporting(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cursors *C.weida_cursors_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(sendReporting[*pairedObj](uint64(h), data, n, levels, nlevels, mode), cursors, "cursors")
}

//export weida_paired_send_reporting_async
func weida_paired_send_reporting_async(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(sendReporting[*pairedObj](uint64(h), data, n, levels, nlevels, mode), cb, user, op)
}

//export weida_paired_open_reporting
func weida_paired_open_reporting(h C.weida_paired_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(openReporting[*pairedObj](uint64(h), levels, nlevels, mode), out, "out")
}

//export weida_paired_open_reporting_async
func weida_paired_open_reporting_async(h C.weida_paired_t, levels *C.uint64_t, nlevels C.size_t, mode C.int, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(openReporting[*pairedObj](uint64(h), levels, nlevels, mode), cb, user, op)
}

//export weida_paired_recv_reporting
func weida_paired_recv_reporting(h C.weida_paired_t, maxBytes C.size_t, msg *C.weida_msg_t, reporter *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(recvReporting[*pairedObj](uint64(h), maxBytes), msg, "msg", reporter, "reporter")
}

//export weida_paired_recv_reporting_async
func weida_paired_recv_reporting_async(h C.weida_paired_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(recvReporting[*pairedObj](uint64(h), maxBytes), cb, user, op)
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
