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

// busObj is a BUS member: bound at its path and dialling other members.
type busObj struct {
	scope
	m *weida.BusMember
}

func (*busObj) role() role { return roleBus }
func (b *busObj) release() { b.closeWith(func() { _ = b.m.Close() }) }

func busConnect(h C.weida_bus_t, url *C.char) prepared {
	return on(uint64(h), func(b *busObj) prepared { return connectCall(b.scope, b.m.Connect, url) })
}

//export weida_bus_connect
func weida_bus_connect(h C.weida_bus_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(busConnect(h, url))
}

//export weida_bus_connect_async
func weida_bus_connect_async(h C.weida_bus_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(busConnect(h, url), cb, user, op)
}

func busSend(h C.weida_bus_t, data unsafe.Pointer, n C.size_t) prepared {
	return on(uint64(h), func(b *busObj) prepared {
		p, err := inBytes(data, n, "data")
		if err != nil {
			return refused(err)
		}
		return b.prepare(func(ctx context.Context) (uint64, uint64, error) {
			reached, err := b.m.Send(ctx, p)
			return uint64(reached), 0, err
		})
	})
}

//export weida_bus_send
func weida_bus_send(h C.weida_bus_t, data unsafe.Pointer, n C.size_t, reached *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(busSend(h, data, n), reached, "reached")
}

//export weida_bus_send_async
func weida_bus_send_async(h C.weida_bus_t, data unsafe.Pointer, n C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(busSend(h, data, n), cb, user, op)
}

func busRecv(h C.weida_bus_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(b *busObj) prepared { return recvCall(b.scope, b.m.Recv, maxBytes) })
}

//export weida_bus_recv
func weida_bus_recv(h C.weida_bus_t, maxBytes C.size_t, out *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(busRecv(h, maxBytes), out, "out")
}

//export weida_bus_recv_async
func weida_bus_recv_async(h C.weida_bus_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(busRecv(h, maxBytes), cb, user, op)
}

//export weida_bus_peer_count
func weida_bus_peer_count(h C.weida_bus_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(b *busObj) uint64 { return uint64(b.m.PeerCount()) })
}

//export weida_bus_dropped
func weida_bus_dropped(h C.weida_bus_t, count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(b *busObj) uint64 { return b.m.Dropped() })
}

//export weida_bus_path
func weida_bus_path(h C.weida_bus_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(b *busObj) string { return b.m.Path() })
}
