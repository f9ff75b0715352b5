package weida

import (
	"context"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// Incoming is what an Acceptor yields: an *IncomingTransfer (a one-way
// transfer), an *IncomingExchange or an *IncomingFlow (a datagram flow).
type Incoming interface{ incoming() }

func (*IncomingTransfer) incoming() {}
func (*IncomingExchange) incoming() {}

// Acceptor is the raw (L0) registration of a path: it takes both one-way
// transfers and exchanges, in arrival order, from one bounded queue, and
// datagram flows (flowaccept.go).
type Acceptor struct {
	l    *Listener
	path string
	q    *acceptorRoute
}

// Acceptor registers a raw acceptor at path.
func (l *Listener) Acceptor(path string) (*Acceptor, error) {
	q := newAcceptorRoute(l.rt.cfg.EndpointQueue)
	if err := l.register(path, q); err != nil {
		return nil, err
	}
	return &Acceptor{l: l, path: path, q: q}, nil
}

// Path is the registered path.
func (a *Acceptor) Path() string { return a.path }

// Accept waits for the next transfer, exchange or flow.
func (a *Acceptor) Accept(ctx context.Context) (Incoming, error) { return a.q.next(ctx) }

// Serve calls handle for every transfer, exchange and flow at the path until
// ctx ends or the Acceptor is closed, and returns why (KindCanceled). It is
// the inline alternative to an Accept loop: an exchange is handled on the
// goroutine that received it from the connection, saving the hand-over to
// the Accept caller, so handle may run concurrently for several exchanges
// (exchanges are unordered, SEMANTICS.md §2.1). At most EndpointQueue such
// calls run at once; beyond that, exchanges wait in the path's bounded
// queue, as do one-way transfers and flows, and Serve's own goroutine
// handles them one at a time in arrival order. Calls already under way may
// still be running when Serve returns. One Serve runs per Acceptor at a
// time; Accept may still be called beside it and shares the queue.
func (a *Acceptor) Serve(ctx context.Context, handle func(Incoming)) error {
	s := &inlineServer{handle: handle, limit: int32(max(1, a.q.depth))}
	if !a.q.inline.CompareAndSwap(nil, s) {
		return errs.New(errs.KindRuntime, "the acceptor at %q is already serving", a.path)
	}
	defer a.q.inline.Store(nil)
	for {
		item, err := a.q.next(ctx)
		if err != nil {
			return err
		}
		handle(item)
	}
}

// inlineServer is a running Serve as the transport goroutines see it.
type inlineServer struct {
	handle  func(Incoming)
	running atomic.Int32 // handle calls under way on transport goroutines
	limit   int32
}

// serve handles ex inline unless limit calls already are; false means it
// was not taken.
func (s *inlineServer) serve(ex *transport.Exchange) bool {
	if s.running.Add(1) > s.limit {
		s.running.Add(-1)
		return false
	}
	defer s.running.Add(-1)
	s.handle(newIncomingExchange(ex))
	return true
}

func wrapInbound(it inbound) Incoming {
	if it.ex != nil {
		return newIncomingExchange(it.ex)
	}
	return it.transfer()
}

// Close unregisters the path; queued items are refused UNKNOWN_ENDPOINT and
// blocked Accept and Serve calls return Canceled.
func (a *Acceptor) Close() error {
	a.l.unregister(a.path, a.q)
	a.q.close()
	return nil
}

var _ transport.Handler = router{}
