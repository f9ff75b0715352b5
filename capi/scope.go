package main

import (
	"context"
	"sync"
	"sync/atomic"

	weida "github.com/weida-go/weida/core"
)

// runtimeRef is a runtime shared by its own handle and every child handle
// (SURFACE.md §2.1: every object keeps its runtime alive). The runtime shuts
// down when the last reference goes, whatever the order of the closes.
type runtimeRef struct {
	rt     *weida.Runtime
	ctx    context.Context // ends at shutdown: wakes every blocked call
	cancel context.CancelFunc
	refs   atomic.Int64
	once   sync.Once
}

func newRuntimeRef(rt *weida.Runtime) *runtimeRef {
	r := &runtimeRef{rt: rt}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.refs.Store(1) // the runtime's own handle
	return r
}

func (r *runtimeRef) acquire() { r.refs.Add(1) }

func (r *runtimeRef) release() {
	if r.refs.Add(-1) == 0 {
		r.shutdown()
	}
}

// shutdown ends the runtime now; blocked calls return Canceled.
func (r *runtimeRef) shutdown() {
	r.once.Do(func() {
		r.cancel()
		r.rt.Shutdown()
	})
}

// scope ties a child handle to its runtime: the child holds a reference,
// and its context ends when the child is closed or the runtime shuts down,
// which is how closing an endpoint wakes its blocked calls with Canceled.
type scope struct {
	owner  *runtimeRef
	ctx    context.Context
	cancel context.CancelFunc
}

func newScope(owner *runtimeRef) scope {
	owner.acquire()
	ctx, cancel := context.WithCancel(owner.ctx)
	return scope{owner: owner, ctx: ctx, cancel: cancel}
}

// closeWith ends the scope: wake blocked calls, run the Go close, then let
// go of the runtime (which may shut it down).
func (s scope) closeWith(closeGo func()) {
	s.cancel()
	closeGo()
	s.owner.release()
}

// runtime is the runtime the scope holds a reference on.
func (s scope) runtime() *runtimeRef { return s.owner }

// prepare builds a call on this scope.
func (s scope) prepare(run func(ctx context.Context) (a, b uint64, err error)) prepared {
	return prepared{ctx: s.ctx, run: run}
}
