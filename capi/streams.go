package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// The states of an outgoing stream.
const (
	streamOpen = iota
	streamFinished
	streamCanceled
)

// ostreamObj is an outgoing streamed transfer. The Go type is for one
// goroutine, so writes and finish are serialized here: C callers may use a
// handle from any thread. Closing it unfinished resets it.
type ostreamObj struct {
	scope
	t       *weida.OutgoingTransfer
	writeMu sync.Mutex // one write or finish at a time
	stateMu sync.Mutex // guards state; never held while waiting
	state   int
}

func (*ostreamObj) role() role { return roleOstream }
func (o *ostreamObj) release() { o.closeWith(o.cancelIfOpen) }

func newOstream(owner *runtimeRef, t *weida.OutgoingTransfer) uint64 {
	return handles.insert(&ostreamObj{scope: newScope(owner), t: t})
}

// cancelIfOpen resets an unfinished stream; after Finish it does nothing,
// since a FIN is a commitment (a later reset would take it back).
func (o *ostreamObj) cancelIfOpen() {
	o.stateMu.Lock()
	defer o.stateMu.Unlock()
	if o.state == streamOpen {
		o.state = streamCanceled
		o.t.Cancel()
	}
}

// usable says why a spent stream refuses a write or finish.
func (o *ostreamObj) usable() error {
	o.stateMu.Lock()
	defer o.stateMu.Unlock()
	switch o.state {
	case streamFinished:
		return &weida.Error{Kind: weida.KindNoReply, Msg: "the stream was already finished"}
	case streamCanceled:
		return &weida.Error{Kind: weida.KindCanceled, Msg: "the stream was canceled"}
	}
	return nil
}

func prepareOstreamWrite(h C.weida_ostream_t, data unsafe.Pointer, n C.size_t) prepared {
	o, err := lookup[*ostreamObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	p, err := inBytes(data, n, "data")
	if err != nil {
		return refused(err)
	}
	return o.prepare(func(ctx context.Context) (uint64, uint64, error) {
		o.writeMu.Lock()
		defer o.writeMu.Unlock()
		if err := o.usable(); err != nil {
			return 0, 0, err
		}
		// A canceled write resets the stream: the peer learns.
		stop := context.AfterFunc(ctx, o.cancelIfOpen)
		_, err := o.t.Write(p)
		if !stop() {
			return 0, 0, &weida.Error{Kind: weida.KindCanceled, Msg: "the write was canceled and the stream reset"}
		}
		return 0, 0, err
	})
}

//export weida_ostream_write
func weida_ostream_write(h C.weida_ostream_t, data unsafe.Pointer, n C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(prepareOstreamWrite(h, data, n))
}

//export weida_ostream_write_async
func weida_ostream_write_async(h C.weida_ostream_t, data unsafe.Pointer, n C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareOstreamWrite(h, data, n), cb, user, op)
}

// prepareOstreamFinish sends the FIN and waits for the transport receipt.
// Canceling the wait does not reset the stream: the FIN already went.
func prepareOstreamFinish(h C.weida_ostream_t) prepared {
	o, err := lookup[*ostreamObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	return o.prepare(func(ctx context.Context) (uint64, uint64, error) {
		d, err := o.finish()
		if err != nil {
			return 0, 0, err
		}
		return 0, 0, d.Delivered(ctx)
	})
}

func (o *ostreamObj) finish() (*weida.Delivery, error) {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	if err := o.usable(); err != nil {
		return nil, err
	}
	o.stateMu.Lock()
	defer o.stateMu.Unlock()
	d, err := o.t.Finish()
	if err != nil {
		o.state = streamCanceled
		return nil, err
	}
	o.state = streamFinished
	return d, nil
}

//export weida_ostream_finish
func weida_ostream_finish(h C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(prepareOstreamFinish(h))
}

//export weida_ostream_finish_async
func weida_ostream_finish_async(h C.weida_ostream_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareOstreamFinish(h), cb, user, op)
}

//export weida_ostream_cancel
func weida_ostream_cancel(h C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := lookup[*ostreamObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	o.cancelIfOpen()
	return codeOK
}

// istreamObj is an incoming streamed transfer and its meta. Reads are
// serialized; closing it before the end refuses the rest (REJECTED).
type istreamObj struct {
	scope
	t        *weida.IncomingTransfer
	mu       sync.Mutex // one read or collect at a time
	reporter reporterOnce
}

func (*istreamObj) role() role                         { return roleIstream }
func (i *istreamObj) release()                         { i.closeWith(func() { _ = i.t.Close() }) }
func (i *istreamObj) incomingMeta() weida.IncomingMeta { return i.t.Meta() }

func newIstream(owner *runtimeRef, t *weida.IncomingTransfer) uint64 {
	return handles.insert(&istreamObj{scope: newScope(owner), t: t})
}

// guardRead runs one read under ctx: a canceled read refuses the stream,
// which both unblocks it and tells the sender.
func (i *istreamObj) guardRead(ctx context.Context, read func() (uint64, error)) (uint64, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = i.t.Close() })
	a, err := read()
	if !stop() {
		return 0, &weida.Error{Kind: weida.KindCanceled, Msg: "the read was canceled and the stream refused"}
	}
	return a, err
}

func prepareIstreamRead(h C.weida_istream_t, buf unsafe.Pointer, capacity C.size_t) prepared {
	i, err := lookup[*istreamObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	if buf == nil || capacity == 0 {
		return refused(invalid("the read buffer must not be NULL and its capacity must not be 0"))
	}
	dst := unsafe.Slice((*byte)(buf), int(ceiling(capacity)))
	return i.prepare(func(ctx context.Context) (uint64, uint64, error) {
		n, err := i.guardRead(ctx, func() (uint64, error) {
			n, err := i.t.Read(dst)
			if n > 0 {
				return uint64(n), nil // an EOF here comes again on the next read
			}
			if err == io.EOF {
				return 0, abiErr(codeEnd, "end of stream")
			}
			return 0, err
		})
		return n, 0, err
	})
}

//export weida_istream_read
func weida_istream_read(h C.weida_istream_t, buf unsafe.Pointer, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(prepareIstreamRead(h, buf, capacity), n, "n")
}

//export weida_istream_read_async
func weida_istream_read_async(h C.weida_istream_t, buf unsafe.Pointer, capacity C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareIstreamRead(h, buf, capacity), cb, user, op)
}

func prepareIstreamCollect(h C.weida_istream_t, maxBytes C.size_t) prepared {
	i, err := lookup[*istreamObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	return i.prepare(func(ctx context.Context) (uint64, uint64, error) {
		m, err := i.guardRead(ctx, func() (uint64, error) {
			body, err := i.t.Collect(ceiling(maxBytes))
			if err != nil {
				return 0, err
			}
			return newMsg(body, i.t.Meta()), nil
		})
		return m, 0, err
	})
}

//export weida_istream_collect
func weida_istream_collect(h C.weida_istream_t, maxBytes C.size_t, out *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(prepareIstreamCollect(h, maxBytes), out, "out")
}

//export weida_istream_collect_async
func weida_istream_collect_async(h C.weida_istream_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareIstreamCollect(h, maxBytes), cb, user, op)
}

// replyObj is the reply half of an opened exchange; it is received once.
// Closing it before then abandons the reply (STOP_SENDING CANCELED); after,
// the istream owns the half and closing the reply does nothing to it.
type replyObj struct {
	scope
	r     *weida.ReplyStream
	spent atomic.Bool // a recv started: a second one is refused
}

func (*replyObj) role() role { return roleReply }
func (r *replyObj) release() {
	r.closeWith(func() {
		if r.spent.CompareAndSwap(false, true) {
			_ = r.r.Close()
		}
	})
}

func newReply(owner *runtimeRef, r *weida.ReplyStream) uint64 {
	return handles.insert(&replyObj{scope: newScope(owner), r: r})
}

func prepareReplyRecv(h C.weida_reply_t) prepared {
	r, err := lookup[*replyObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	return r.prepare(func(ctx context.Context) (uint64, uint64, error) {
		if !r.spent.CompareAndSwap(false, true) {
			return 0, 0, &weida.Error{Kind: weida.KindNoReply, Msg: "the reply was already received (or abandoned)"}
		}
		in, err := r.r.Recv(ctx)
		if err != nil {
			return 0, 0, err
		}
		return newIstream(r.owner, in), 0, nil
	})
}

//export weida_reply_recv
func weida_reply_recv(h C.weida_reply_t, out *C.weida_istream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(prepareReplyRecv(h), out, "out")
}

//export weida_reply_recv_async
func weida_reply_recv_async(h C.weida_reply_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareReplyRecv(h), cb, user, op)
}
