package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"

	weida "github.com/weida-go/weida/core"
)

type subscriberObj struct {
	scope
	s *weida.Subscriber
}

func (*subscriberObj) role() role { return roleSubscriber }
func (s *subscriberObj) release() { s.closeWith(func() { _ = s.s.Close() }) }

func subscriberConnect(h C.weida_subscriber_t, url *C.char) prepared {
	return on(uint64(h), func(s *subscriberObj) prepared { return connectCall(s.scope, s.s.Connect, url) })
}

//export weida_subscriber_connect
func weida_subscriber_connect(h C.weida_subscriber_t, url *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(subscriberConnect(h, url))
}

//export weida_subscriber_connect_async
func weida_subscriber_connect_async(h C.weida_subscriber_t, url *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(subscriberConnect(h, url), cb, user, op)
}

// filterCall runs Subscribe or Unsubscribe with one filter.
func filterCall(h C.weida_subscriber_t, filter *C.char, change func(*weida.Subscriber) func(context.Context, string) error) prepared {
	return on(uint64(h), func(s *subscriberObj) prepared {
		f, err := inText(filter, "filter")
		if err != nil {
			return refused(err)
		}
		apply := change(s.s)
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, apply(ctx, f) })
	})
}

func subscribe(s *weida.Subscriber) func(context.Context, string) error   { return s.Subscribe }
func unsubscribe(s *weida.Subscriber) func(context.Context, string) error { return s.Unsubscribe }

//export weida_subscriber_subscribe
func weida_subscriber_subscribe(h C.weida_subscriber_t, filter *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(filterCall(h, filter, subscribe))
}

//export weida_subscriber_subscribe_async
func weida_subscriber_subscribe_async(h C.weida_subscriber_t, filter *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(filterCall(h, filter, subscribe), cb, user, op)
}

//export weida_subscriber_unsubscribe
func weida_subscriber_unsubscribe(h C.weida_subscriber_t, filter *C.char) (rc C.int) {
	defer recoverInto(&rc)
	return block0(filterCall(h, filter, unsubscribe))
}

//export weida_subscriber_unsubscribe_async
func weida_subscriber_unsubscribe_async(h C.weida_subscriber_t, filter *C.char, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(filterCall(h, filter, unsubscribe), cb, user, op)
}

func subscriberRecv(h C.weida_subscriber_t, maxBytes C.size_t) prepared {
	return on(uint64(h), func(s *subscriberObj) prepared { return recvCall(s.scope, s.s.Recv, maxBytes) })
}

//export weida_subscriber_recv
func weida_subscriber_recv(h C.weida_subscriber_t, maxBytes C.size_t, out *C.weida_msg_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(subscriberRecv(h, maxBytes), out, "out")
}

//export weida_subscriber_recv_async
func weida_subscriber_recv_async(h C.weida_subscriber_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(subscriberRecv(h, maxBytes), cb, user, op)
}

func subscriberRecvStream(h C.weida_subscriber_t) prepared {
	return on(uint64(h), func(s *subscriberObj) prepared { return recvStreamCall(s.scope, s.s.RecvStream) })
}

//export weida_subscriber_recv_stream
func weida_subscriber_recv_stream(h C.weida_subscriber_t, out *C.weida_istream_t) (rc C.int) {
	defer recoverInto(&rc)
	return block1(subscriberRecvStream(h), out, "out")
}

//export weida_subscriber_recv_stream_async
func weida_subscriber_recv_stream_async(h C.weida_subscriber_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(subscriberRecvStream(h), cb, user, op)
}

//export weida_subscriber_peer_count
func weida_subscriber_peer_count(h C.weida_subscriber_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(s *subscriberObj) uint64 { return uint64(s.s.PeerCount()) })
}

//export weida_subscriber_filter_count
func weida_subscriber_filter_count(h C.weida_subscriber_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(s *subscriberObj) uint64 { return uint64(s.s.FilterCount()) })
}
