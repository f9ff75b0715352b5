package main

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// pairedObj is either end of a PAIR: the dialling end (weida_runtime_pair)
// or the bound end (weida_binding_pair).
type pairedObj struct {
	scope
	p *weida.Paired
}

func (*pairedObj) role() role { return rolePaired }
func (p *pairedObj) release() { p.closeWith(func() { _ = p.p.Close() }) }

func pairedConnect(h C.weida_paired_t, url *C.char) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return connectCall(p.scope, p.p.Connect, url) })
}

//export weida_paired_connect
func weida_paired_connect(h C.weida_paired_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(pairedConnect(h, url))
}

//export weida_paired_connect_async
func weida_paired_connect_async(h C.weida_paired_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedConnect(h, url), cb, user, op)
}

func pairedSend(h C.weida_paired_t, data unsafe.Pointer, n C.size_t) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return sendCall(p.scope, p.p.Send, data, n) })
}

//export weida_paired_send
func weida_paired_send(h C.weida_paired_t, data unsafe.Pointer, n C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(pairedSend(h, data, n))
}

//export weida_paired_send_async
func weida_paired_send_async(h C.weida_paired_t, data unsafe.Pointer, n C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedSend(h, data, n), cb, user, op)
}

func pairedOpen(h C.weida_paired_t) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return openCall(p.scope, p.p.Open) })
}

//export weida_paired_open
func weida_paired_open(h C.weida_paired_t, out *C.weida_ostream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pairedOpen(h), out, "out")
}

//export weida_paired_open_async
func weida_paired_open_async(h C.weida_paired_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedOpen(h), cb, user, op)
}

func pairedRecv(h C.weida_paired_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return recvCall(p.scope, p.p.Recv, maxBytes) })
}

//export weida_paired_recv
func weida_paired_recv(h C.weida_paired_t, maxBytes C.size_t, out *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pairedRecv(h, maxBytes), out, "out")
}

//export weida_paired_recv_async
func weida_paired_recv_async(h C.weida_paired_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedRecv(h, maxBytes), cb, user, op)
}

func pairedRecvStream(h C.weida_paired_t) prepared {
	return on(uint64(h), func(p *pairedObj) prepared { return recvStreamCall(p.scope, p.p.RecvStream) })
}

//export weida_paired_recv_stream
func weida_paired_recv_stream(h C.weida_paired_t, out *C.weida_istream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(pairedRecvStream(h), out, "out")
}

//export weida_paired_recv_stream_async
func weida_paired_recv_stream_async(h C.weida_paired_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(pairedRecvStream(h), cb, user, op)
}

//export weida_paired_path
func weida_paired_path(h C.weida_paired_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(p *pairedObj) string { return p.p.Path() })
}

//export weida_paired_peer_count
func weida_paired_peer_count(h C.weida_paired_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(p *pairedObj) uint64 { return uint64(p.p.PeerCount()) })
}
