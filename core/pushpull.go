package weida

import (
	"context"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Pusher is the sending side of Push/Pull (SEMANTICS.md §2.2): one
// unidirectional stream per message, round-robin per message over live
// connections. A slow puller keeps its share and, once its queue and stream
// budget are spent, stalls the pusher through QUIC flow control: nothing is
// dropped in flight. Sends made while every connection is down wait in the
// outbox (SEMANTICS.md §8.5).
type Pusher struct {
	d   *dialer
	box *outbox
}

// Pusher creates a pusher that verifies servers under trust.
func (rt *Runtime) Pusher(trust Trust, opts ...EndpointOption) *Pusher {
	d := newDialer(rt, trust, opts)
	return &Pusher{d: d, box: newOutbox(rt, d)}
}

// Connect dials url (weida://[sha256:…@]host:port/path) and adds it as a
// slot; each call adds a peer to the round-robin. It returns once the
// connection is negotiated.
func (p *Pusher) Connect(ctx context.Context, url string) error { return p.d.connect(ctx, url) }

// Disconnect removes url's slot; it reports whether there was one.
func (p *Pusher) Disconnect(url string) bool { return p.d.disconnect(url) }

// PeerCount is the number of live connections.
func (p *Pusher) PeerCount() int { return p.d.peerCount() }

// Events returns a reader of this endpoint's slot transitions.
func (p *Pusher) Events() *PeerEvents { return p.d.events.subscribe() }

// Send pushes payload as one message. It returns once the payload is
// written to a live connection with its FIN queued, or copied into the
// outbox when no connection is live or earlier sends still wait there
// (order of writing is kept). It is at-most-once and reports no receipt:
// use Open when the receipt matters. Without any Connect it fails
// NotConnected; at a full outbox Config.OutboxFull decides (block, drop
// counted in Dropped, or LimitExceeded); a body larger than
// Config.OutboxBytes is refused LimitExceeded. A refusal by the puller is
// certain to surface only for a payload beyond its stream window (decision
// 0005); a smaller one may be acknowledged first and then discarded.
func (p *Pusher) Send(ctx context.Context, payload []byte) error {
	return p.box.send(ctx, payload, TransferMeta{})
}

// TrySend is Send that never waits. It reports true once the payload is
// written to a live connection (its FIN queued, or the peer refused it as
// its bytes went: that refusal is the error, and the message must not be
// sent again), or copied into the outbox (or dropped there under
// OutboxDrop, counted); false, having done nothing, when Send would wait
// — for the peer's stream credit, for flow-control room, for outbox room
// under OutboxBlock — and also for a payload above 16 KiB, over a local
// transport, and on a connection that numbers its transfers (ordering or
// deduplication agreed). Its errors are
// Send's that need no waiting to know: NotConnected, a closed endpoint, a
// body above OutboxBytes, a full outbox under OutboxReject, and (with true)
// the peer's refusal. An event loop calls it first and hands a Send to a
// goroutine only when it says false.
func (p *Pusher) TrySend(payload []byte) (bool, error) { return p.box.trySend(payload) }

// SendWith is Send with the message's meta. It hands back no Cursors, so
// a meta that orders a report fails with Runtime: use SendReporting.
func (p *Pusher) SendWith(ctx context.Context, meta TransferMeta, payload []byte) error {
	if err := refuseReportOrder(meta); err != nil {
		return err
	}
	return p.box.send(ctx, payload, meta)
}

// SendReporting pushes payload as one message that orders a report from
// its puller (cursors, decision 0023): the Cursors show how far the puller
// says the payload got, per ordered level — e.g. Processed once its
// application handled it — with no exchange and no reply. An empty order
// orders nothing and returns nil Cursors. A bad order (a reserved level, a
// mode other than Progress or FinalOnly, more than 16 levels) fails with
// Protocol before anything is sent.
//
// Unlike Send it bypasses the outbox, since the report belongs to the
// connection the message travels: with every connection down it waits for
// a redial, bounded by ctx and Config.SendTimeout. It returns once the
// payload is written with its FIN queued; ctx ending before that resets
// the message.
func (p *Pusher) SendReporting(ctx context.Context, payload []byte, order ReportOrder) (*Cursors, error) {
	return sendReporting(ctx, payload, order, func(meta TransferMeta) (*OutgoingTransfer, error) {
		return p.Open(ctx, meta)
	})
}

// Open opens one message as a stream on the next live connection: write
// it, then Finish; the Delivery's Delivered is the transport receipt. It
// bypasses the outbox: with every connection down it waits for a redial,
// bounded by ctx and Config.SendTimeout.
func (p *Pusher) Open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	if err := checkReportOrder(meta); err != nil { // cursors: refused before any wait
		return nil, err
	}
	return p.d.openTransfer(ctx, meta)
}

// Dropped counts outbox bodies dropped by the OutboxDrop policy or lost
// before they could be written (every connection gave up).
func (p *Pusher) Dropped() uint64 { return p.box.droppedCount() }

// Close abandons what still waits in the outbox, releases the endpoint's
// connections and stops its redials. Messages already written still go
// out: Runtime.Drain waits for the puller to consume them, and a transfer
// opened with Open for its receipt.
func (p *Pusher) Close() error {
	p.box.close()
	p.d.close()
	p.box.wait()
	return nil
}

// Puller is the receiving side of Push/Pull: a path that accepts one-way
// transfers only, from one fair bounded queue (Config.EndpointQueue). A
// puller that stops reading stalls its pushers once their stream budget is
// spent. Exchanges at its path are refused UNSUPPORTED.
type Puller struct {
	l    *Listener
	path string
	q    *queueRoute
}

// Puller registers a puller at path.
func (l *Listener) Puller(path string) (*Puller, error) {
	q := newQueueRoute(l.rt.cfg.EndpointQueue, true, false)
	if err := l.register(path, q); err != nil {
		return nil, err
	}
	return &Puller{l: l, path: path, q: q}, nil
}

// Puller registers a puller at path on the binding's listener (every
// binding of a listener serves the same paths).
func (b *Binding) Puller(path string) (*Puller, error) { return b.rt.listener.Puller(path) }

// Path is the registered path.
func (p *Puller) Path() string { return p.path }

// Recv waits for the next message and reads its whole payload under the
// ceiling maxBytes. Above the ceiling the message is refused (the pusher
// sees Rejected when it can still observe it) and Recv fails LimitExceeded;
// a message its pusher canceled fails Canceled, one cut by a lost connection
// ConnectionLost. Each failure costs that message only: the puller stays
// usable. When ctx ends during a read the message is refused.
func (p *Puller) Recv(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, error) {
	return p.RecvAppend(ctx, nil, maxBytes)
}

// RecvAppend is Recv appending the payload to dst, a buffer the caller
// lends (nil is Recv): once it has the room, a receive allocates nothing
// for the payload. The ceiling applies to the payload alone. The result
// shares dst's array, so dst may be reused once the caller is done with
// the payload.
func (p *Puller) RecvAppend(ctx context.Context, dst []byte, maxBytes int64) ([]byte, IncomingMeta, error) {
	if maxBytes < 0 {
		return nil, IncomingMeta{}, errs.New(errs.KindRuntime, "recv: maxBytes must not be negative, got %d", maxBytes)
	}
	it, err := p.q.next(ctx)
	if err != nil {
		return nil, IncomingMeta{}, err
	}
	body, err := pullCollect(ctx, it.data, dst, maxBytes)
	if err != nil {
		return nil, IncomingMeta{}, err
	}
	return body, it.meta(), nil
}

// RecvStream waits for the next message without reading it: the streamed
// form for payloads too large to hold. Read it to io.EOF, then Close it.
func (p *Puller) RecvStream(ctx context.Context) (*IncomingTransfer, error) {
	it, err := p.q.next(ctx)
	if err != nil {
		return nil, err
	}
	return it.transfer(), nil
}

// RecvReporting is Recv that also hands over the Reporter of the report
// the pusher ordered, or nil when it ordered none. Report through it once
// the message is handled (e.g. Processed at its length), then Finish it.
func (p *Puller) RecvReporting(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, *Reporter, error) {
	t, body, err := collectNext(ctx, p.q, maxBytes)
	if err != nil {
		return nil, IncomingMeta{}, nil, err
	}
	return body, t.Meta(), t.Reporter(), nil
}

// Close unregisters the path; queued messages are refused UNKNOWN_ENDPOINT
// and blocked Recv calls return Canceled.
func (p *Puller) Close() error {
	p.l.unregister(p.path, p.q)
	p.q.close()
	return nil
}

// pullCollect is Collect of in, appending to dst (collectAppend), bounded
// by ctx: when ctx ends mid-read the transfer is refused (STOP_SENDING
// REJECTED), which also unblocks the read. A payload read whole before that
// is still returned.
func pullCollect(ctx context.Context, in *transport.InStream, dst []byte, maxBytes int64) ([]byte, error) {
	if body, ok := takeWhole(in, dst, maxBytes); ok { // in hand already: no read to abandon
		return body, nil
	}
	stop := neverStops
	if ctx.Done() != nil { // a context that cannot end needs no watcher
		stop = context.AfterFunc(ctx, func() { in.Refuse(wire.CodeRejected) })
	}
	body, err := collectAppend(in, dst, maxBytes)
	if !stop() && err != nil {
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "receive abandoned: the transfer was refused")
	}
	return body, err
}
