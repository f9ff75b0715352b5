package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
)

// prepared is a waiting operation whose handles and arguments were already
// checked: run does the waiting under ctx. It is built once per ABI
// function and run by both forms, so the blocking and the callback form of
// a call can never disagree.
type prepared struct {
	ctx context.Context // ends when the handle the call is on is closed
	run func(ctx context.Context) (a, b uint64, err error)
	err error // a bad handle or argument: nothing starts
	// now, when set, is run's outcome if it needs no waiting: done false
	// means it did nothing and run must go on a goroutine. The completion
	// queue form tries it first (start).
	now func() (done bool, a, b uint64, err error)
}

// refused is a call that cannot start.
func refused(err error) prepared { return prepared{err: err} }

// runGuarded runs p, turning a panic into WEIDA_EINTERNAL.
func runGuarded(p prepared, ctx context.Context) (a, b uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, b, err = 0, 0, internalFault(r)
		}
	}()
	return p.run(ctx)
}

// runNowGuarded is runGuarded for p.now.
func runNowGuarded(p prepared) (done bool, a, b uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			done, a, b, err = true, 0, 0, internalFault(r)
		}
	}()
	return p.now()
}

// blocking runs p on the calling thread.
func blocking(p prepared) (a, b uint64, err error) {
	if p.err != nil {
		return 0, 0, p.err
	}
	if inCallback() {
		return 0, 0, errBlockingInCallback
	}
	return runGuarded(p, p.ctx)
}

// block0 is the blocking form of a call with no results.
func block0(p prepared) C.int {
	if _, _, err := blocking(p); err != nil {
		return fail(err)
	}
	return codeOK
}

// block1 is the blocking form of a call with one result. *outA is zeroed
// first, so a failed call never leaves a stale handle behind.
func block1[A word](p prepared, outA *A, what string) C.int {
	if err := required(outA, what); err != nil {
		return fail(err)
	}
	*outA = 0
	a, _, err := blocking(p)
	*outA = A(a)
	if err != nil {
		return fail(err)
	}
	return codeOK
}

// block2 is the blocking form of a call with two results.
func block2[A, B word](p prepared, outA *A, whatA string, outB *B, whatB string) C.int {
	if err := required(outA, whatA); err != nil {
		return fail(err)
	}
	if err := required(outB, whatB); err != nil {
		return fail(err)
	}
	*outA, *outB = 0, 0
	a, b, err := blocking(p)
	if err != nil {
		return fail(err)
	}
	*outA, *outB = A(a), B(b)
	return codeOK
}

// opObj is a pending callback-form operation; releasing it cancels it.
type opObj struct{ cancel context.CancelFunc }

func (*opObj) role() role { return roleOp }
func (o *opObj) release() { o.cancel() }

// start is the callback form: it runs p on a goroutine and reports the
// outcome to cb exactly once, or to the queue when cb is weida_cq_post
// (cq.go). The op handle is removed before cb runs, so a cancel that
// loses the race finds a stale handle rather than a wrong op.
func start(p prepared, cb C.weida_done_fn, user C.uintptr_t, opOut *C.weida_op_t) C.int {
	if p.err != nil {
		return fail(p.err)
	}
	if cb == nil {
		return fail(invalid("the callback must not be NULL"))
	}
	queue, err := cqTarget(cb, user)
	if err != nil {
		return fail(err)
	}
	if queue != nil && p.now != nil {
		if done, a, b, err := runNowGuarded(p); done || err != nil {
			// Finished on the caller's thread: queued at once, so no
			// thread has to be woken to run it or to report it.
			h := handles.insert(&opObj{cancel: func() {}})
			if opOut != nil {
				*opOut = C.weida_op_t(h)
			}
			_, _ = handles.remove(h)
			queue.postOutcome(h, err, a, b)
			return codeOK
		}
	}
	ctx, cancel := context.WithCancel(p.ctx)
	h := handles.insert(&opObj{cancel: cancel})
	if opOut != nil {
		*opOut = C.weida_op_t(h)
	}
	go func() {
		_ = tightenTimerSlack()
		a, b, err := runGuarded(p, ctx)
		_, _ = handles.remove(h) // already gone if the caller closed it
		cancel()
		if queue != nil {
			queue.postOutcome(h, err, a, b)
			return
		}
		complete(cb, user, err, a, b)
	}()
	return codeOK
}

// complete calls cb on this goroutine's thread, with the failure's sentence
// as that thread's last error. No lock is held here.
func complete(cb C.weida_done_fn, user C.uintptr_t, err error, a, b uint64) {
	code, text := codeOK, ""
	if err != nil {
		code, text = codeOf(err), err.Error()
	}
	C.weida_bridge_done(cb, user, C.int(code), C.uint64_t(a), C.uint64_t(b), textPtr(text), C.size_t(len(text)))
}

//export weida_op_cancel
func weida_op_cancel(op C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := lookup[*opObj](uint64(op))
	if err != nil {
		return fail(err)
	}
	o.cancel()
	return codeOK
}
