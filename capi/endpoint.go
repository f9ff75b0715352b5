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

// Helpers shared by the pattern files: each turns one Go method shape into
// a prepared call or a getter, so an export is a lookup and one line.

// on looks h up as a T and builds the call on it.
func on[T object](h uint64, build func(T) prepared) prepared {
	o, err := lookup[T](h)
	if err != nil {
		return refused(err)
	}
	return build(o)
}

// connectCall dials url with a dialling endpoint's Connect.
func connectCall(s scope, connect func(context.Context, string) error, url *C.char) prepared {
	u, err := inText(url, "url")
	if err != nil {
		return refused(err)
	}
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, connect(ctx, u) })
}

// sendCall sends one whole payload.
func sendCall(s scope, send func(context.Context, []byte) error, data unsafe.Pointer, n C.size_t) prepared {
	return trySendCall(s, send, nil, data, n)
}

// trySendCall is sendCall whose completion-queue form first tries trySend
// (when not nil), which sends only if that needs no waiting
// (Pusher.TrySend): then no thread is woken for the send at all.
func trySendCall(s scope, send func(context.Context, []byte) error, trySend func([]byte) (bool, error), data unsafe.Pointer, n C.size_t) prepared {
	p, err := inBytes(data, n, "data")
	if err != nil {
		return refused(err)
	}
	call := s.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, send(ctx, p) })
	if trySend != nil {
		call.now = func() (bool, uint64, uint64, error) {
			sent, err := trySend(p)
			return sent, 0, 0, err
		}
	}
	return call
}

// recvCall receives one whole message under a ceiling as a msg handle.
func recvCall(s scope, recv func(context.Context, int64) ([]byte, weida.IncomingMeta, error), maxBytes C.size_t) prepared {
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		body, meta, err := recv(ctx, ceiling(maxBytes))
		if err != nil {
			return 0, 0, err
		}
		return newMsg(body, meta), 0, nil
	})
}

// recvStreamCall hands the next transfer over unread as an istream handle.
func recvStreamCall(s scope, recv func(context.Context) (*weida.IncomingTransfer, error)) prepared {
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		t, err := recv(ctx)
		if err != nil {
			return 0, 0, err
		}
		return newIstream(s.owner, t), 0, nil
	})
}

// openCall opens a streamed transfer as an ostream handle.
func openCall(s scope, open func(context.Context, weida.TransferMeta) (*weida.OutgoingTransfer, error)) prepared {
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		t, err := open(ctx, weida.TransferMeta{})
		if err != nil {
			return 0, 0, err
		}
		return newOstream(s.owner, t), 0, nil
	})
}

// acceptCall accepts one whole request as a request handle.
func acceptCall(s scope, accept func(context.Context, int64) (*weida.Request, error), maxBytes C.size_t) prepared {
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) {
		req, err := accept(ctx, ceiling(maxBytes))
		if err != nil {
			return 0, 0, err
		}
		return newRequest(s.owner, req), 0, nil
	})
}

// answer runs a non-waiting call on the T behind h and writes the number
// it yields (a count, a flag, a handle) to *out, named what in the error
// when NULL. *out reads 0 whenever the call does not succeed.
func answer[T object, N word](h uint64, out *N, what string, call func(T) (uint64, error)) C.int {
	if err := required(out, what); err != nil {
		return fail(err)
	}
	*out = 0
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	v, err := call(o)
	if err != nil {
		return fail(err)
	}
	*out = N(v)
	return codeOK
}

// counted adapts a Go call that returns an int count to answer's shape.
func counted(n int, err error) (uint64, error) { return uint64(n), err }

// getCount answers a non-waiting count query on a T.
func getCount[T object, N word](h uint64, out *N, get func(T) uint64) C.int {
	return answer(h, out, "count", func(o T) (uint64, error) { return get(o), nil })
}

// handOut answers a non-waiting getter that yields a handle (0 for none).
func handOut[T object, H word](h uint64, out *H, get func(T) uint64) C.int {
	return answer(h, out, "out", func(o T) (uint64, error) { return get(o), nil })
}

// sendOnTopic sends one payload on a topic with a Go call that copies what
// it keeps before it returns (Publish, Datagram), so the caller's bytes are
// lent for the call rather than copied twice; the count is the copies made.
func sendOnTopic(topic *C.char, data unsafe.Pointer, n C.size_t, send func(string, []byte) (int, error)) (uint64, error) {
	t, err := inText(topic, "topic")
	if err != nil {
		return 0, err
	}
	payload, err := lendBytes(data, n, "data")
	if err != nil {
		return 0, err
	}
	return counted(send(t, payload))
}

// getText answers a non-waiting text query on a T.
func getText[T object](h uint64, buf *C.char, capacity C.size_t, needed *C.size_t, get func(T) string) C.int {
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	return outText(get(o), buf, capacity, needed)
}

// parent is a handle object that child handles are made from; a child
// shares its runtime reference.
type parent interface {
	object
	runtime() *runtimeRef
}

// parentOf resolves the T behind h that a child handle is made from, for
// register, and keeps it in *p for the build step.
func parentOf[T parent](h uint64, p *T) func() (*runtimeRef, error) {
	return func() (*runtimeRef, error) {
		o, err := lookup[T](h)
		if err != nil {
			return nil, err
		}
		*p = o
		return o.runtime(), nil
	}
}

// register makes a child endpoint of a binding or runtime, taking a runtime
// reference only once the Go call succeeded. A runtime that was shut down
// or drained makes nothing more (SURFACE.md §2.5: it is consumed).
func register[H word](out *H, owner func() (*runtimeRef, error), build func(scope) (object, error)) C.int {
	if err := required(out, "out"); err != nil {
		return fail(err)
	}
	*out = 0
	ref, err := owner()
	if err != nil {
		return fail(err)
	}
	if ref.ctx.Err() != nil {
		return fail(&weida.Error{Kind: weida.KindRuntime, Msg: "the runtime was shut down or drained: it makes no more bindings or endpoints"})
	}
	s := newScope(ref)
	o, err := build(s)
	if err != nil {
		s.closeWith(func() {})
		return fail(err)
	}
	*out = H(handles.insert(o))
	return codeOK
}
