package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

type requesterObj struct {
	scope
	r *weida.Requester
}

func (*requesterObj) role() role { return roleRequester }
func (r *requesterObj) release() { r.closeWith(func() { _ = r.r.Close() }) }

type replierObj struct {
	scope
	r *weida.Replier
}

func (*replierObj) role() role { return roleReplier }
func (r *replierObj) release() { r.closeWith(func() { _ = r.r.Close() }) }

// requestObj is an accepted request: its payload copied to C memory once,
// so C may read it in place until the handle is closed. Closing it
// unanswered sends NO_REPLY.
type requestObj struct {
	scope
	req      *weida.Request
	body     cBlock
	reporter reporterOnce
}

func (*requestObj) role() role                         { return roleRequest }
func (r *requestObj) incomingMeta() weida.IncomingMeta { return r.req.Meta() }
func (r *requestObj) release() {
	r.closeWith(func() { _ = r.req.Close() })
	r.body.free()
}

func newRequest(owner *runtimeRef, req *weida.Request) uint64 {
	return handles.insert(&requestObj{scope: newScope(owner), req: req, body: newCBlock(req.Payload())})
}

func requesterConnect(h C.weida_requester_t, url *C.char) prepared {
	return on(uint64(h), func(r *requesterObj) prepared { return connectCall(r.scope, r.r.Connect, url) })
}

//export weida_requester_connect
func weida_requester_connect(h C.weida_requester_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(requesterConnect(h, url))
}

//export weida_requester_connect_async
func weida_requester_connect_async(h C.weida_requester_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(requesterConnect(h, url), cb, user, op)
}

func requesterRequest(h C.weida_requester_t, data unsafe.Pointer, n, maxReply C.size_t) prepared {
	return on(uint64(h), func(r *requesterObj) prepared {
		p, err := inBytes(data, n, "data")
		if err != nil {
			return refused(err)
		}
		return r.prepare(func(ctx context.Context) (uint64, uint64, error) {
			body, meta, err := r.r.RequestWith(ctx, weida.TransferMeta{}, p, ceiling(maxReply))
			if err != nil {
				return 0, 0, err
			}
			return newMsg(body, meta), 0, nil
		})
	})
}

//export weida_requester_request
func weida_requester_request(h C.weida_requester_t, data unsafe.Pointer, n, maxReply C.size_t, reply *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(requesterRequest(h, data, n, maxReply), reply, "reply")
}

//export weida_requester_request_async
func weida_requester_request_async(h C.weida_requester_t, data unsafe.Pointer, n, maxReply C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(requesterRequest(h, data, n, maxReply), cb, user, op)
}

func requesterOpen(h C.weida_requester_t) prepared {
	return on(uint64(h), func(r *requesterObj) prepared {
		return r.prepare(func(ctx context.Context) (uint64, uint64, error) {
			out, reply, err := r.r.Open(ctx, weida.TransferMeta{})
			if err != nil {
				return 0, 0, err
			}
			return newOstream(r.owner, out), newReply(r.owner, reply), nil
		})
	})
}

//export weida_requester_open
func weida_requester_open(h C.weida_requester_t, request *C.weida_ostream_t, reply *C.weida_reply_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(requesterOpen(h), request, "request", reply, "reply")
}

//export weida_requester_open_async
func weida_requester_open_async(h C.weida_requester_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(requesterOpen(h), cb, user, op)
}

//export weida_requester_peer_count
func weida_requester_peer_count(h C.weida_requester_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(r *requesterObj) uint64 { return uint64(r.r.PeerCount()) })
}

func replierAccept(h C.weida_replier_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(r *replierObj) prepared { return acceptCall(r.scope, r.r.Accept, maxBytes) })
}

//export weida_replier_accept
func weida_replier_accept(h C.weida_replier_t, maxBytes C.size_t, out *C.weida_request_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(replierAccept(h, maxBytes), out, "out")
}

//export weida_replier_accept_async
func weida_replier_accept_async(h C.weida_replier_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(replierAccept(h, maxBytes), cb, user, op)
}

//export weida_replier_path
func weida_replier_path(h C.weida_replier_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(r *replierObj) string { return r.r.Path() })
}

//export weida_request_payload
func weida_request_payload(h C.weida_request_t, data *unsafe.Pointer, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	r, err := lookup[*requestObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	return r.body.lend(data, n)
}

func requestReply(h C.weida_request_t, data unsafe.Pointer, n C.size_t) prepared {
	return on(uint64(h), func(r *requestObj) prepared { return sendCall(r.scope, r.req.Reply, data, n) })
}

//export weida_request_reply
func weida_request_reply(h C.weida_request_t, data unsafe.Pointer, n C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(requestReply(h, data, n))
}

//export weida_request_reply_async
func weida_request_reply_async(h C.weida_request_t, data unsafe.Pointer, n C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(requestReply(h, data, n), cb, user, op)
}

//export weida_request_refuse
func weida_request_refuse(h C.weida_request_t) (rc C.int) {
	defer recoverInto(&rc)
	r, err := lookup[*requestObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if err := r.req.Refuse(); err != nil {
		return fail(err)
	}
	return codeOK
}
