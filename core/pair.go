package weida

import (
	"context"
	"errors"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Paired is one end of an exclusive two-party link (SEMANTICS.md §2.4):
// one-way transfers in both directions on the one connection between the
// two ends, neither side a replier. A dialling pair (Runtime.Pair) connects
// once; a bound pair (Listener.Pair) belongs to the first peer that speaks
// to it, and refuses a second peer with LimitExceeded while the first is
// live. No wire vocabulary is added: a dialling pair talks to an Acceptor or
// Puller, a bound pair to a raw Peer or Pusher.
type Paired struct {
	inbox *queueRoute // the other end's transfers, in arrival order
	side  pairSide
}

// pairSide is what differs between the dialling and the bound end.
type pairSide interface {
	connect(ctx context.Context, url string) error
	send(ctx context.Context, payload []byte, meta TransferMeta) error
	open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error)
	path() string
	peerCount() int
	events() *PeerEvents
	close()
}

// Pair creates the dialling end of a pair, verifying servers under trust.
// Call Connect once, then Send/Open and Recv concurrently.
func (rt *Runtime) Pair(trust Trust, opts ...EndpointOption) *Paired {
	inbox := newQueueRoute(rt.cfg.EndpointQueue, true, false)
	d := newDialer(rt, trust, opts)
	// The bound end's transfers arrive on the connection this end dialled.
	d.inbound = inbox
	return &Paired{inbox: inbox, side: &pairDialling{d: d, box: newOutbox(rt, d)}}
}

// Pair registers the bound end of a pair at path.
func (l *Listener) Pair(path string) (*Paired, error) {
	claim := &pairClaim{queueRoute: newQueueRoute(l.rt.cfg.EndpointQueue, true, false),
		claimed: make(chan struct{})}
	if err := l.register(path, claim); err != nil {
		return nil, err
	}
	return &Paired{inbox: claim.queueRoute, side: &pairBound{l: l, at: path, claim: claim}}, nil
}

// Pair registers the bound end of a pair at path on the binding's listener.
func (b *Binding) Pair(path string) (*Paired, error) { return b.rt.listener.Pair(path) }

// Connect dials url (dialling end only) and returns once the connection is
// negotiated. A pair connects once: a second call fails with LimitExceeded.
// A lost connection is redialled under the reconnect policy. On a bound end
// Connect is a Runtime error: its peer dials it.
func (p *Paired) Connect(ctx context.Context, url string) error { return p.side.connect(ctx, url) }

// Send writes payload as one transfer to the other end. The dialling end
// writes to its live connection, or into its outbox while the connection is
// down (SEMANTICS.md §8.5, at-most-once). The bound end writes to the
// connection of the peer that owns it; until a peer has spoken it waits,
// bounded only by ctx. Sent to a bound end another peer owns, the transfer
// is refused and the writer sees LimitExceeded (observable, like every
// refusal, once the payload exceeds the peer's stream window).
func (p *Paired) Send(ctx context.Context, payload []byte) error {
	return p.side.send(ctx, payload, TransferMeta{})
}

// SendWith is Send with a DATA header saying meta. It hands back no
// Cursors, so a meta that orders a report fails with Runtime: use
// SendReporting.
func (p *Paired) SendWith(ctx context.Context, meta TransferMeta, payload []byte) error {
	if err := refuseReportOrder(meta); err != nil {
		return err
	}
	return p.side.send(ctx, payload, meta)
}

// SendReporting writes payload as one transfer that orders a report from
// the other end, and returns its Cursors (nil for an empty order); see
// Pusher.SendReporting. It waits for the connection as Open does (no
// outbox), and a bad order fails with Protocol before anything is sent.
func (p *Paired) SendReporting(ctx context.Context, payload []byte, order ReportOrder) (*Cursors, error) {
	return sendReporting(ctx, payload, order, func(meta TransferMeta) (*OutgoingTransfer, error) {
		return p.side.open(ctx, meta)
	})
}

// Open opens a streamed transfer to the other end; write it, then Finish or
// Cancel. It waits for a connection as Send does (the dialling end also
// bounded by Config.SendTimeout); nothing is held in the outbox.
func (p *Paired) Open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	if err := checkReportOrder(meta); err != nil { // cursors: refused before any wait
		return nil, err
	}
	return p.side.open(ctx, meta)
}

// Recv waits for the other end's next transfer and reads it whole if it is
// at most maxBytes. Above the ceiling the transfer is refused (the sender
// sees Rejected) and Recv returns LimitExceeded; a transfer the sender
// cancelled is Canceled, never a payload.
func (p *Paired) Recv(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, error) {
	return pairCollectNext(ctx, p.inbox, maxBytes)
}

// RecvReporting is Recv that also hands over the Reporter of the report
// the other end ordered, or nil when it ordered none.
func (p *Paired) RecvReporting(ctx context.Context, maxBytes int64) ([]byte, IncomingMeta, *Reporter, error) {
	t, body, err := collectNext(ctx, p.inbox, maxBytes)
	if err != nil {
		return nil, IncomingMeta{}, nil, err
	}
	return body, t.Meta(), t.Reporter(), nil
}

// RecvStream waits for the other end's next transfer and hands it over
// unread; read it and Close it.
func (p *Paired) RecvStream(ctx context.Context) (*IncomingTransfer, error) {
	it, err := p.inbox.next(ctx)
	if err != nil {
		return nil, err
	}
	return it.transfer(), nil
}

// Path is the bound end's registered path, or the path the dialling end
// connected to ("" before Connect).
func (p *Paired) Path() string { return p.side.path() }

// PeerCount is 1 while the other end's connection is live, else 0.
func (p *Paired) PeerCount() int { return p.side.peerCount() }

// Events returns a reader of the end's peer transitions. A dialling end
// reports its slot (Connected, Lost, Retrying, GaveUp); a bound end reports
// Connected (with the peer's key, if it proved one) when a peer's
// connection takes the claim, and Lost when that connection ends.
func (p *Paired) Events() *PeerEvents { return p.side.events() }

// Close ends the pair: a dialling end releases its connection (and its
// claim on a pooled one) and abandons its outbox; a bound end unregisters
// its path. Queued inbound transfers are refused; blocked calls return
// Canceled.
func (p *Paired) Close() error {
	p.side.close()
	p.inbox.close()
	return nil
}

// pairCollectNext takes q's next one-way transfer and reads it whole under
// the ceiling maxBytes; when ctx ends mid-read the transfer is refused.
func pairCollectNext(ctx context.Context, q *queueRoute, maxBytes int64) ([]byte, IncomingMeta, error) {
	t, body, err := collectNext(ctx, q, maxBytes)
	if err != nil {
		return nil, IncomingMeta{}, err
	}
	return body, t.Meta(), nil
}

// collectNext is pairCollectNext that also returns the transfer, for the
// receives that hand out its Reporter.
func collectNext(ctx context.Context, q *queueRoute, maxBytes int64) (*IncomingTransfer, []byte, error) {
	if maxBytes < 0 {
		return nil, nil, errs.New(errs.KindRuntime, "recv: maxBytes must not be negative, got %d", maxBytes)
	}
	it, err := q.next(ctx)
	if err != nil {
		return nil, nil, err
	}
	t := it.transfer()
	body, err := pullCollect(ctx, t.in, nil, maxBytes)
	if err != nil {
		return nil, nil, err
	}
	return t, body, nil
}

// pairDialling is the end that dials: a dialer with one slot and an outbox.
type pairDialling struct {
	d   *dialer
	box *outbox

	mu         sync.Mutex
	connecting bool // a Connect succeeded or is under way
	dialled    string
}

func (s *pairDialling) connect(ctx context.Context, url string) error {
	addr, err := identity.ParseAddress(url)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.connecting {
		s.mu.Unlock()
		return errs.New(errs.KindLimitExceeded, "a dialling pair connects once: it already has its peer")
	}
	s.connecting = true
	s.mu.Unlock()
	if err := s.d.connect(ctx, url); err != nil {
		s.mu.Lock()
		s.connecting = false
		s.mu.Unlock()
		return err
	}
	s.mu.Lock()
	s.dialled = addr.Path
	s.mu.Unlock()
	return nil
}

func (s *pairDialling) send(ctx context.Context, payload []byte, meta TransferMeta) error {
	return s.box.send(ctx, payload, meta)
}

func (s *pairDialling) open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	return s.d.openTransfer(ctx, meta)
}

func (s *pairDialling) path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dialled
}

func (s *pairDialling) peerCount() int      { return s.d.peerCount() }
func (s *pairDialling) events() *PeerEvents { return s.d.events.subscribe() }

func (s *pairDialling) close() {
	s.box.close()
	s.d.close()
	s.box.wait()
}

// pairBound is the end registered at a path.
type pairBound struct {
	l     *Listener
	at    string
	claim *pairClaim
}

func (s *pairBound) connect(context.Context, string) error {
	return errs.New(errs.KindRuntime, "a bound pair does not connect: its peer dials %s", s.at)
}

func (s *pairBound) send(ctx context.Context, payload []byte, meta TransferMeta) error {
	t, err := s.open(ctx, meta.whole(len(payload)))
	if err != nil {
		return err
	}
	return t.sendWhole(ctx, payload)
}

// open waits for the owning peer, then opens a transfer to it addressed to
// this end's own path (the path that peer dialled).
func (s *pairBound) open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	c, err := s.claim.await(ctx)
	if err != nil {
		return nil, err
	}
	return openTransferAt(ctx, c, s.at, meta)
}

func (s *pairBound) path() string { return s.at }

func (s *pairBound) peerCount() int {
	if s.claim.owned() != nil {
		return 1
	}
	return 0
}

func (s *pairBound) events() *PeerEvents { return s.claim.events.subscribe() }

func (s *pairBound) close() { s.l.unregister(s.at, s.claim) }

// pairClaim is the bound end's route. The claim is per connection: the
// first connection that sends a transfer owns the endpoint; another
// connection's transfers are refused LIMIT_EXCEEDED (the first peer is kept,
// unlike ZeroMQ's silent drop) until the owner's connection ends, after
// which the next peer that speaks owns it. Exchanges are Unsupported.
type pairClaim struct {
	*queueRoute

	events eventHub

	mu      sync.Mutex
	owner   *transport.Conn
	claimed chan struct{} // closed and replaced when a connection takes the claim
}

func (pc *pairClaim) enqueue(it inbound) bool {
	if !pc.admit(it.conn()) {
		it.data.Refuse(wire.CodeLimitExceeded)
		return true // answered: the refusal is the dispatch's one answer
	}
	return pc.queueRoute.enqueue(it)
}

// admit reports whether c owns the endpoint, claiming it when it is free.
func (pc *pairClaim) admit(c *transport.Conn) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.owner == c {
		return true
	}
	if pc.owner != nil && pc.owner.Err() == nil {
		return false
	}
	pc.owner = c
	close(pc.claimed)
	pc.claimed = make(chan struct{})
	fp, _ := c.Peer()
	pc.events.emit(PeerEvent{Kind: EventConnected, Fingerprint: fp})
	go pc.watch(c)
	return true
}

// watch reports the end of the owner's connection; it returns with the
// connection or the route.
func (pc *pairClaim) watch(c *transport.Conn) {
	select {
	case <-c.Done():
		pc.events.emit(PeerEvent{Kind: EventLost, Cause: pairLossCause(c.Err())})
	case <-pc.done:
	}
}

// pairLossCause is why a connection ended, as its error says.
func pairLossCause(err error) LossCause {
	var e *errs.Error
	if errors.As(err, &e) && e.Cause != errs.CauseNone {
		return e.Cause
	}
	return errs.CauseTransportError
}

// owned returns the owner while its connection lives, else nil.
func (pc *pairClaim) owned() *transport.Conn {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.owner != nil && pc.owner.Err() == nil {
		return pc.owner
	}
	return nil
}

// await waits until a live connection owns the endpoint (README decision
// 12: no deadline, no knob; ctx is the bound).
func (pc *pairClaim) await(ctx context.Context) (*transport.Conn, error) {
	for {
		pc.mu.Lock()
		owner, claimed := pc.owner, pc.claimed
		pc.mu.Unlock()
		if owner != nil && owner.Err() == nil {
			return owner, nil
		}
		// No live owner: wait for the next peer to speak.
		select {
		case <-claimed:
		case <-pc.done:
			return nil, errEndpointClosed()
		case <-ctx.Done():
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for the pair's peer to speak")
		}
	}
}
