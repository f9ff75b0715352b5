package weida

import (
	"context"

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

func wrapInbound(it inbound) Incoming {
	if it.ex != nil {
		return newIncomingExchange(it.ex)
	}
	return it.transfer()
}

// Close unregisters the path; queued items are refused UNKNOWN_ENDPOINT and
// blocked Accept calls return Canceled.
func (a *Acceptor) Close() error {
	a.l.unregister(a.path, a.q)
	a.q.close()
	return nil
}

var _ transport.Handler = router{}
