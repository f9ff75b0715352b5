package weida

import (
	"context"
	"sync/atomic"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// acceptorRoute is an Acceptor's registration: the path's queue of
// transfers and exchanges, plus a queue of datagram flows. Flows wait apart
// because they are not streams of payload: each is at most max_flows per
// connection and holds only its own bounded ring.
type acceptorRoute struct {
	*queueRoute
	flows  chan *transport.InFlow
	depth  int
	inline atomic.Pointer[inlineServer] // the running Serve, if any (acceptor.go)
}

func newAcceptorRoute(depth int) *acceptorRoute {
	return &acceptorRoute{queueRoute: newQueueRoute(depth, true, true),
		flows: make(chan *transport.InFlow, depth), depth: depth}
}

// enqueue implements route: while a Serve runs, an exchange is handled on
// the transport goroutine that accepted it, with no queue hop or wake-up,
// unless depth calls already are; anything else takes the queue.
func (r *acceptorRoute) enqueue(it inbound) bool {
	if it.ex != nil {
		if s := r.inline.Load(); s != nil && !r.closed() && s.serve(it.ex) {
			return true
		}
	}
	return r.queueRoute.enqueue(it)
}

// enqueueFlow implements flowRoute.
func (r *acceptorRoute) enqueueFlow(f *transport.InFlow) bool {
	select {
	case r.flows <- f:
		if r.closed() {
			r.refuseFlows() // close may have emptied flows before it landed
		}
		return true
	case <-r.done:
		return false
	case <-f.Conn().Done():
		return false
	}
}

// next waits for the next transfer, exchange or flow.
func (r *acceptorRoute) next(ctx context.Context) (Incoming, error) {
	// A flow already waiting goes first: its datagrams age while it waits.
	select {
	case f := <-r.flows:
		return newIncomingFlow(f), nil
	default:
	}
	select {
	case f := <-r.flows:
		return newIncomingFlow(f), nil
	case it := <-r.items:
		r.took()
		return wrapInbound(it), nil
	case <-r.done:
		return nil, errs.New(errs.KindCanceled, "the endpoint was closed")
	case <-ctx.Done():
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "accept abandoned")
	}
}

// close closes the stream queue and refuses the flows still waiting.
func (r *acceptorRoute) close() {
	r.queueRoute.close()
	r.refuseFlows()
}

// refuseFlows refuses the flows waiting in flows.
func (r *acceptorRoute) refuseFlows() {
	for {
		select {
		case f := <-r.flows:
			f.Refuse(wire.CodeUnknownEndpoint)
		default:
			return
		}
	}
}
