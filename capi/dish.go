package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"

	weida "github.com/weida-go/weida/core"
)

// dishObj is the dialling side of RADIO/DISH.
type dishObj struct {
	scope
	d *weida.Dish
}

func (*dishObj) role() role { return roleDish }
func (d *dishObj) release() { d.closeWith(func() { _ = d.d.Close() }) }

//export weida_runtime_dish
func weida_runtime_dish(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_dish_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &dishObj{scope: s, d: s.owner.rt.Dish(t, eo...)}
	})
}

func dishConnect(h C.weida_dish_t, url *C.char) prepared {
	return on(uint64(h), func(d *dishObj) prepared { return connectCall(d.scope, d.d.Connect, url) })
}

//export weida_dish_connect
func weida_dish_connect(h C.weida_dish_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(dishConnect(h, url))
}

//export weida_dish_connect_async
func weida_dish_connect_async(h C.weida_dish_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(dishConnect(h, url), cb, user, op)
}

func dishJoin(h C.weida_dish_t, filter *C.char, opts *C.weida_join_opts_t) prepared {
	return on(uint64(h), func(d *dishObj) prepared {
		f, err := inText(filter, "filter")
		if err != nil {
			return refused(err)
		}
		jo, err := joinOptions(opts)
		if err != nil {
			return refused(err)
		}
		return d.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, d.d.Join(ctx, f, jo) })
	})
}

//export weida_dish_join
func weida_dish_join(h C.weida_dish_t, filter *C.char, opts *C.weida_join_opts_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(dishJoin(h, filter, opts))
}

//export weida_dish_join_async
func weida_dish_join_async(h C.weida_dish_t, filter *C.char, opts *C.weida_join_opts_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(dishJoin(h, filter, opts), cb, user, op)
}

func dishLeave(h C.weida_dish_t, filter *C.char) prepared {
	return on(uint64(h), func(d *dishObj) prepared {
		f, err := inText(filter, "filter")
		if err != nil {
			return refused(err)
		}
		return d.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, d.d.Leave(ctx, f) })
	})
}

//export weida_dish_leave
func weida_dish_leave(h C.weida_dish_t, filter *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(dishLeave(h, filter))
}

//export weida_dish_leave_async
func weida_dish_leave_async(h C.weida_dish_t, filter *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(dishLeave(h, filter), cb, user, op)
}

// dishRecv receives the next segment or datagram segment as a msg handle
// (a) and its enum weida_dish_kind (b).
func dishRecv(h C.weida_dish_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(d *dishObj) prepared {
		return d.prepare(func(ctx context.Context) (uint64, uint64, error) {
			m, err := d.d.Recv(ctx, ceiling(maxBytes))
			if err != nil {
				return 0, 0, err
			}
			return newDishMsg(m), uint64(m.Kind), nil
		})
	})
}

//export weida_dish_recv
func weida_dish_recv(h C.weida_dish_t, maxBytes C.size_t, out *C.weida_msg_t, kind *C.int) (rc C.int) {
	defer recoverInto(&rc)
	return block2(dishRecv(h, maxBytes), out, "out", kind, "kind")
}

//export weida_dish_recv_async
func weida_dish_recv_async(h C.weida_dish_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(dishRecv(h, maxBytes), cb, user, op)
}

//export weida_dish_peer_count
func weida_dish_peer_count(h C.weida_dish_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(d *dishObj) uint64 { return uint64(d.d.PeerCount()) })
}
