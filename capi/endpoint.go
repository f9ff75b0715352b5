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
	p, err := inBytes(data, n, "data")
	if err != nil {
		return refused(err)
	}
	return s.prepare(func(ctx context.Context) (uint64, uint64, error) { return 0, 0, send(ctx, p) })
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

// getCount answers a non-waiting count query on a T.
func getCount[T object, N word](h uint64, out *N, get func(T) uint64) C.int {
	if err := required(out, "count"); err != nil {
		return fail(err)
	}
	*out = 0
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	*out = N(get(o))
	return codeOK
}

// getText answers a non-waiting text query on a T.
func getText[T object](h uint64, buf *C.char, capacity C.size_t, needed *C.size_t, get func(T) string) C.int {
	o, err := lookup[T](h)
	if err != nil {
		return fail(err)
	}
	return outText(get(o), buf, capacity, needed)
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
