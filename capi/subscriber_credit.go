package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
)

// The consumer side of a queue (BROKER.md §6): a subscriber grants credit
// and settles each delivery through the reporter its receive hands over.

func subscriberGrant(h C.weida_subscriber_t, limit C.uint64_t) prepared {
	return on(uint64(h), func(s *subscriberObj) prepared {
		return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
			return 0, 0, s.s.Grant(ctx, uint64(limit))
		})
	})
}

//export weida_subscriber_grant
func weida_subscriber_grant(h C.weida_subscriber_t, limit C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return block0(subscriberGrant(h, limit))
}

//export weida_subscriber_grant_async
func weida_subscriber_grant_async(h C.weida_subscriber_t, limit C.uint64_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(subscriberGrant(h, limit), cb, user, op)
}

//export weida_subscriber_granted
func weida_subscriber_granted(h C.weida_subscriber_t, limit *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), limit, "limit", func(s *subscriberObj) (uint64, error) { return s.s.Granted(), nil })
}

func (s *subscriberObj) reportReceiver() (scope, reportReceiver) { return s.scope, s.s }

//export weida_subscriber_recv_reporting
func weida_subscriber_recv_reporting(h C.weida_subscriber_t, maxBytes C.size_t, msg *C.weida_msg_t, reporter *C.weida_reporter_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(recvReporting[*subscriberObj](uint64(h), maxBytes), msg, "msg", reporter, "reporter")
}

//export weida_subscriber_recv_reporting_async
func weida_subscriber_recv_reporting_async(h C.weida_subscriber_t, maxBytes C.size_t, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(recvReporting[*subscriberObj](uint64(h), maxBytes), cb, user, op)
}
