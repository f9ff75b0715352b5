package main

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

type pusherObj struct {
	scope
	p *weida.Pusher
}

func (*pusherObj) role() role { return rolePusher }
func (p *pusherObj) release() { p.closeWith(func() { _ = p.p.Close() }) }

type pullerObj struct {
	scope
	p *weida.Puller
}

func (*pullerObj) role() role { return rolePuller }
func (p *pullerObj) release() { p.closeWith(func() { _ = p.p.Close() }) }

func pusherConnect(h C.weida_pusher_t, url *C.char) prepared {
	return on(uint64(h), func(p *pusherObj) prepared { return connectCall(p.scope, p.p.Connect, url) })
}

//export weida_pusher_connect
func weida_pusher_connect(h C.weida_pusher_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(pusherConnect(h, url))
}

//export weida_pusher_connect_async
func weida_pusher_connect_async(h C.weida_pusher_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pusherConnect(h, url), cb, user, op)
}

func pusherSend(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t) prepared {
	return on(uint64(h), func(p *pusherObj) prepared { return trySendCall(p.scope, p.p.Send, p.p.TrySend, data, n) })
}

//export weida_pusher_send
func weida_pusher_send(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(pusherSend(h, data, n))
}

//export weida_pusher_send_async
func weida_pusher_send_async(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pusherSend(h, data, n), cb, user, op)
}

//export weida_pusher_try_send
func weida_pusher_try_send(h C.weida_pusher_t, data unsafe.Pointer, n C.size_t, sent *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(sent, "sent"); err != nil {
		return fail(err)
	}
	*sent = 0
	payload, err := lendBytes(data, n, "data") // TrySend copies what it keeps
	if err != nil {
		return fail(err)
	}
	p, err := lookup[*pusherObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	ok, err := p.p.TrySend(payload)
	if ok {
		*sent = 1 // also with an error: the peer refused what went
	}
	if err != nil {
		return fail(err)
	}
	return codeOK
}

func pusherOpen(h C.weida_pusher_t) prepared {
	return on(uint64(h), func(p *pusherObj) prepared { return openCall(p.scope, p.p.Open) })
}

//export weida_pusher_open
func weida_pusher_open(h C.weida_pusher_t, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pusherOpen(h), out, "out")
}

//export weida_pusher_open_async
func weida_pusher_open_async(h C.weida_pusher_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pusherOpen(h), cb, user, op)
}

//export weida_pusher_peer_count
func weida_pusher_peer_count(h C.weida_pusher_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *pusherObj) uint64 { return uint64(p.p.PeerCount()) })
}

//export weida_pusher_dropped
func weida_pusher_dropped(h C.weida_pusher_t, count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *pusherObj) uint64 { return p.p.Dropped() })
}

func pullerRecv(h C.weida_puller_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(p *pullerObj) prepared { return recvCall(p.scope, p.p.Recv, maxBytes) })
}

//export weida_puller_recv
func weida_puller_recv(h C.weida_puller_t, maxBytes C.size_t, out *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pullerRecv(h, maxBytes), out, "out")
}

//export weida_puller_recv_async
func weida_puller_recv_async(h C.weida_puller_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pullerRecv(h, maxBytes), cb, user, op)
}

func pullerRecvStream(h C.weida_puller_t) prepared {
	return on(uint64(h), func(p *pullerObj) prepared { return recvStreamCall(p.scope, p.p.RecvStream) })
}

//export weida_puller_recv_stream
func weida_puller_recv_stream(h C.weida_puller_t, out *C.weida_istream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pullerRecvStream(h), out, "out")
}

//export weida_puller_recv_stream_async
func weida_puller_recv_stream_async(h C.weida_puller_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pullerRecvStream(h), cb, user, op)
}

//export weida_puller_path
func weida_puller_path(h C.weida_puller_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(p *pullerObj) string { return p.p.Path() })
}
