package main

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// cBlock is payload bytes in C memory: C may keep its address until the
// handle owning it is closed, which Go memory would not allow.
type cBlock struct {
	p unsafe.Pointer
	n int
}

// newCBlock copies b into fresh C memory (never NULL, even for 0 bytes).
func newCBlock(b []byte) cBlock {
	p := C.malloc(C.size_t(max(len(b), 1)))
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	return cBlock{p: p, n: len(b)}
}

func (c cBlock) free() { C.free(c.p) }

// lend writes the block's address and length to the caller's pointers.
func (c cBlock) lend(data *unsafe.Pointer, n *C.size_t) C.int {
	if err := required(data, "data"); err != nil {
		return fail(err)
	}
	if err := required(n, "len"); err != nil {
		return fail(err)
	}
	*data, *n = c.p, C.size_t(c.n)
	return codeOK
}

// msgObj is a whole received message: payload in C memory plus its meta.
// It is a plain value and keeps no runtime alive.
type msgObj struct {
	body     cBlock
	meta     weida.IncomingMeta
	datagram *datagramFields // a dish's datagram segment only (dishmsg.go)
}

func (*msgObj) role() role                         { return roleMsg }
func (m *msgObj) release()                         { m.body.free() }
func (m *msgObj) incomingMeta() weida.IncomingMeta { return m.meta }

// newMsg stores a received payload as a msg handle.
func newMsg(body []byte, meta weida.IncomingMeta) uint64 {
	return handles.insert(&msgObj{body: newCBlock(body), meta: meta})
}

//export weida_msg_data
func weida_msg_data(h C.weida_msg_t, data *unsafe.Pointer, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	m, err := lookup[*msgObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	return m.body.lend(data, n)
}
