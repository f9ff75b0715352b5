package main

/*
#include "cq.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// A completion queue (weida_cq_t) is the third callback form of SURFACE
// §3: an _async call given weida_cq_post as its callback and a cq as its
// user pointer runs no code of the caller's on a library thread. Its
// outcome is appended to the queue and the queue's descriptor becomes
// readable; the caller's own thread (an event loop watching the
// descriptor) takes a batch of outcomes with one weida_cq_drain call.
// Bindings whose callbacks must first enter an interpreter (Python's
// PyGILState_Ensure, Node's threadsafe functions) pay that entry per
// operation otherwise; this way they pay one descriptor wakeup per batch.

// cqObj is one completion queue. Each operation posts at most once, so the
// queue holds at most as many entries as the caller has operations in
// flight: it grows with the caller's own calls, never with peer input.
type cqObj struct {
	mu        sync.Mutex
	ready     []completion
	signalled bool // a raise is due or done since the last clear
	closed    bool
	// signalMu lets post raise outside mu while release closes the
	// descriptor: never a write to a closed (or reused) descriptor number.
	signalMu     sync.RWMutex
	signal       cqSignal
	signalClosed bool // under signalMu
}

// completion is one outcome waiting in a queue.
type completion struct {
	op   uint64
	code C.int
	a, b uint64
	text string // the failure's sentence; "" when code is WEIDA_OK
}

func (*cqObj) role() role { return roleCQ }

// release drops outcomes nobody will drain and closes the descriptor;
// operations still running post into nothing.
func (q *cqObj) release() {
	q.mu.Lock()
	q.closed = true
	q.ready = nil
	q.mu.Unlock()
	q.signalMu.Lock()
	defer q.signalMu.Unlock()
	q.signalClosed = true
	q.signal.close()
}

// post appends one outcome, raising the descriptor when the queue was
// empty. It raises after unlocking: the thread it wakes drains at once,
// and finding the lock still held would park it, a costly detour for a
// thread that entered Go from C.
func (q *cqObj) post(c completion) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.ready = append(q.ready, c)
	raise := !q.signalled
	q.signalled = true
	q.mu.Unlock()
	if raise {
		q.signalMu.RLock()
		defer q.signalMu.RUnlock()
		if !q.signalClosed {
			q.signal.raise()
		}
	}
}

// take moves up to len(out) outcomes into out, stopping after the first
// failure so that its sentence can be the draining thread's last error.
// The descriptor is cleared once the queue is empty. A raise can land just
// after that clear (post raises outside the lock), leaving the descriptor
// readable over an empty queue: the reader then drains nothing, and that
// empty drain clears it. No outcome is ever left behind an unreadable
// descriptor, because each one's raise follows the clear before it.
func (q *cqObj) take(out []C.weida_completion_t) (n int, failure string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed { // closed after the caller looked the handle up
		return 0, ""
	}
	for n < len(out) && n < len(q.ready) {
		c := q.ready[n]
		out[n] = C.weida_completion_t{op: C.uint64_t(c.op), code: C.int32_t(c.code), a: C.uint64_t(c.a), b: C.uint64_t(c.b)}
		n++
		if c.code != codeOK {
			failure = c.text
			break
		}
	}
	rest := copy(q.ready, q.ready[n:])
	clear(q.ready[rest:]) // drop the taken sentences
	q.ready = q.ready[:rest]
	if rest == 0 && (q.signalled || n == 0) {
		q.signalled = false
		q.signal.clear()
	}
	return n, failure
}

// cqPostFn is weida_cq_post as a C function pointer, to recognise it
// where an _async call takes its callback.
var cqPostFn = C.weida_bridge_cq_post()

// cqTarget returns the queue an _async call posts to, or nil when cb is an
// ordinary callback. A cq that is not a live cq handle refuses the call.
func cqTarget(cb C.weida_done_fn, user C.uintptr_t) (*cqObj, error) {
	if cb != cqPostFn {
		return nil, nil
	}
	return lookup[*cqObj](uint64(user))
}

// postOutcome queues an operation's outcome the way complete would call back.
func (q *cqObj) postOutcome(op uint64, err error, a, b uint64) {
	c := completion{op: op, code: codeOK, a: a, b: b}
	if err != nil {
		c.code, c.text = C.int(codeOf(err)), err.Error()
	}
	q.post(c)
}

//export weida_cq_new
func weida_cq_new(out *C.weida_cq_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(out, "out"); err != nil {
		return fail(err)
	}
	*out = 0
	s, err := newCQSignal()
	if err != nil {
		return fail(err)
	}
	*out = C.weida_cq_t(handles.insert(&cqObj{signal: s}))
	return codeOK
}

//export weida_cq_fd
func weida_cq_fd(h C.weida_cq_t, fd *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(fd, "fd"); err != nil {
		return fail(err)
	}
	q, err := lookup[*cqObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	*fd = C.int(q.signal.fd())
	return codeOK
}

//export weida_cq_drain
func weida_cq_drain(h C.weida_cq_t, out *C.weida_completion_t, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*n = 0
	if out == nil && capacity > 0 {
		return fail(invalid("out must not be NULL when cap is not 0"))
	}
	q, err := lookup[*cqObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if capacity == 0 {
		return codeOK
	}
	taken, failure := q.take(unsafe.Slice(out, capacity))
	*n = C.size_t(taken)
	if taken > 0 && out != nil {
		last := unsafe.Slice(out, taken)[taken-1]
		if last.code != codeOK {
			C.weida_bridge_set_error(textPtr(failure), C.size_t(len(failure)))
		}
	}
	return codeOK
}

// weida_cq_post is a marker more than a function: an _async call given it
// as its callback posts into the cq its user pointer names, with the op's
// handle. Called directly, it posts an outcome with op 0 (a way to wake
// the queue's reader); a stale cq is ignored.
//
//export weida_cq_post
func weida_cq_post(user C.uintptr_t, code C.int, a, b C.uint64_t) {
	defer recoverInto(new(C.int))
	q, err := lookup[*cqObj](uint64(user))
	if err != nil {
		return
	}
	c := completion{code: code, a: uint64(a), b: uint64(b)}
	if code != codeOK {
		c.text = "posted by the caller with weida_cq_post"
	}
	q.post(c)
}
