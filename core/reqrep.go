package weida

import (
	"context"
	"errors"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/ctxwatch"
)

// Requester is the asking side of Req/Rep (SEMANTICS.md §2.1): it connects
// to Replier paths and runs exchanges on them, one bidirectional stream per
// exchange, round-robin over live connections (one exchange per pick). It
// has no outbox: with every connection down an exchange waits in Open for a
// redial, bounded by ctx and Config.SendTimeout. Exchanges may run
// concurrently from any number of goroutines.
type Requester struct {
	d       *dialer
	watches ctxwatch.Set // what abandons exchanges when their contexts end
}

// Requester creates a requester that verifies servers under trust.
func (rt *Runtime) Requester(trust Trust, opts ...EndpointOption) *Requester {
	return &Requester{d: newDialer(rt, trust, opts)}
}

// Connect dials url (weida://[sha256:…@]host:port/path) and adds it as a
// slot; each call adds a peer to the round-robin. It returns once the
// connection is negotiated.
func (r *Requester) Connect(ctx context.Context, url string) error { return r.d.connect(ctx, url) }

// Disconnect removes url's slot; it reports whether there was one.
func (r *Requester) Disconnect(url string) bool { return r.d.disconnect(url) }

// PeerCount is the number of live connections.
func (r *Requester) PeerCount() int { return r.d.peerCount() }

// Events returns a reader of this endpoint's slot transitions.
func (r *Requester) Events() *PeerEvents { return r.d.events.subscribe() }

// Open starts an exchange on the next live connection: write the request to
// the OutgoingTransfer and Finish it, and read the reply from the
// ReplyStream — concurrently when either side is large, since both halves
// stream at once. With no slot it fails NotConnected at once; with every
// slot down it waits for a redial (bounded by ctx and Config.SendTimeout).
func (r *Requester) Open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	if err := checkReportOrder(meta); err != nil { // cursors: refused before any wait
		return nil, nil, err
	}
	return r.d.openExchange(ctx, meta)
}

// Request sends payload as one request and returns the whole reply, read
// under the ceiling maxReplyBytes. See RequestWith for the outcomes.
func (r *Requester) Request(ctx context.Context, payload []byte, maxReplyBytes int64) ([]byte, error) {
	body, _, err := r.RequestWith(ctx, TransferMeta{}, payload, maxReplyBytes)
	return body, err
}

// RequestWith sends payload with meta as one request and returns the whole
// reply and its meta. The request is written while the reply is read, so a
// large request never deadlocks a replier that streams its answer back.
//
// Outcomes (SEMANTICS.md §2.1): the replier's ERROR answer is
// UnknownEndpoint, Unsupported, Rejected or NoReply; a connection lost
// before the request's FIN is ConnectionLost (definite); lost after it,
// before the whole reply, is Indeterminate; a replier that resets its reply
// is Canceled; a reply above maxReplyBytes is LimitExceeded, and its half is
// stopped so the replier's writes fail. A meta that orders a report fails
// with Runtime (no Cursors come back): order one through Open. When ctx
// ends both halves are reset and the result is Canceled. A complete reply
// ends the exchange: a request the replier did not read to its end is then
// canceled.
func (r *Requester) RequestWith(ctx context.Context, meta TransferMeta, payload []byte, maxReplyBytes int64) ([]byte, IncomingMeta, error) {
	return r.request(ctx, meta, nil, payload, maxReplyBytes)
}

// RequestAppend is Request appending the reply to dst, a buffer the caller
// lends (nil is Request): once it has the room, a round trip allocates
// nothing for the reply. The ceiling applies to the reply alone. The result
// shares dst's array, so dst may be reused once the caller is done with
// the reply.
func (r *Requester) RequestAppend(ctx context.Context, dst, payload []byte, maxReplyBytes int64) ([]byte, error) {
	body, _, err := r.request(ctx, TransferMeta{}, dst, payload, maxReplyBytes)
	return body, err
}

// request is RequestWith appending the reply to dst (collectAppend).
func (r *Requester) request(ctx context.Context, meta TransferMeta, dst, payload []byte, maxReplyBytes int64) ([]byte, IncomingMeta, error) {
	if maxReplyBytes < 0 {
		return nil, IncomingMeta{}, errs.New(errs.KindRuntime, "request: maxReplyBytes must not be negative, got %d", maxReplyBytes)
	}
	if err := refuseReportOrder(meta); err != nil { // no Cursors come back: order through Open
		return nil, IncomingMeta{}, err
	}
	var rd redirects // a member's NOT_LEADER: the payload is in hand, so it is sent again to the leader
	for {
		out, reply, err := r.Open(ctx, meta.whole(len(payload)))
		if err != nil {
			return nil, IncomingMeta{}, err
		}
		body, in, err := reqrepExchange(ctx, &r.watches, out, reply, payload, dst, maxReplyBytes)
		if err == nil {
			return body, in, nil
		}
		if retry, err := r.d.followNotLeader(ctx, out.conn(), err, &rd); !retry {
			return nil, IncomingMeta{}, err
		}
	}
}

// Close releases the endpoint's connections and stops its redials.
// Exchanges still waiting for a reply may end Indeterminate.
func (r *Requester) Close() error {
	r.d.close()
	r.watches.Close()
	return nil
}

// reqrepExchange writes the request (a large one on its own goroutine while
// this one receives the reply, appended to dst: collectAppend), then
// decides the one outcome the caller sees. While it runs, ctx ending resets
// both halves (through ws).
func reqrepExchange(ctx context.Context, ws *ctxwatch.Set, out *OutgoingTransfer, reply *ReplyStream, payload, dst []byte, maxReplyBytes int64) ([]byte, IncomingMeta, error) {
	sender := &reqrepSender{out: out, reply: reply}
	// The watch unblocks the request write, the wait for the reply and the
	// read of its body alike.
	ws.Watch(ctx, &sender.watch, sender)
	defer ws.Unwatch(&sender.watch)
	sender.start(payload)

	// The watch above already abandons the reply when ctx ends, so the
	// receive need not watch ctx a second time.
	in, err := reply.Recv(context.Background())
	var body []byte
	if err == nil {
		body, err = collectAppend(in.in, dst, maxReplyBytes)
	}
	if err == nil {
		// A complete reply ends the exchange; a request still being written
		// is no longer wanted by the replier.
		sender.abort()
		sender.wait()
		return body, in.Meta(), nil
	}
	if ctx.Err() != nil {
		sender.abort()
		sender.wait()
		return nil, IncomingMeta{}, errs.Wrap(errs.KindCanceled, ctx.Err(), "request abandoned")
	}
	return nil, IncomingMeta{}, reqrepOutcome(err, sender)
}

// reqrepOutcome picks the error of a failed exchange. A connection loss is
// decided by the request half: before its FIN the request definitely did
// not arrive whole (ConnectionLost), after it the outcome is unknown
// (Indeterminate). Every other reply-half failure (ERROR frame, reset, the
// reply ceiling) wins over the request half (SEMANTICS.md §6.3 precedence).
func reqrepOutcome(replyErr error, sender *reqrepSender) error {
	if !reqrepIsLoss(replyErr) {
		sender.abort()
		sender.wait()
		return replyErr
	}
	// The connection is gone, so the writer fails on its own; aborting it
	// here would hide the loss it saw behind a local cancel.
	finished, writeErr := sender.wait()
	if !finished && reqrepIsLoss(writeErr) {
		return writeErr
	}
	if errs.KindOf(replyErr) == errs.KindIndeterminate {
		return replyErr
	}
	var e *errs.Error
	errors.As(replyErr, &e)
	return &errs.Error{Kind: errs.KindIndeterminate, Cause: e.Cause, Err: replyErr,
		Msg: "outcome unknown: the connection ended before the whole reply arrived (" + e.Msg + ")"}
}

// reqrepIsLoss reports whether err says the connection ended.
func reqrepIsLoss(err error) bool {
	switch errs.KindOf(err) {
	case errs.KindConnectionLost, errs.KindIndeterminate, errs.KindProtocol, errs.KindNegotiation:
		return true
	}
	return false
}

// reqrepSender writes one whole request (see start). abort cancels
// it unless its FIN is already queued, so a request that got out whole is
// never reset after the fact, while a FIN that waits (a full unix socket)
// is cut short.
type reqrepSender struct {
	out   *OutgoingTransfer
	reply *ReplyStream
	done  chan struct{}
	watch ctxwatch.Entry // its place among the exchanges waiting under ctx

	mu       sync.Mutex
	finished bool
	aborted  bool
	err      error
}

// inlineRequestMax is the largest request written on the caller's
// goroutine, before the reply is awaited. Such a write cannot wait for this
// exchange's reply: it fits a fresh stream's window with room to spare (1
// MiB on every transport; quic-go even copies a write of up to one packet
// without looking at flow control), so only a connection window the
// replier left full could delay it, and ctx still bounds that. The
// goroutine hop this saves is several percent of a loopback round trip. A
// larger request streams on its own goroutine while the reply is read.
const inlineRequestMax = 1 << 10

// closedDone is the done channel of a request written inline.
var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// start writes the request: inline when it is small, else on its own
// goroutine while the caller receives the reply.
func (s *reqrepSender) start(payload []byte) {
	if len(payload) <= inlineRequestMax {
		s.done = closedDone
		s.run(payload)
		return
	}
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.run(payload)
	}()
}

func (s *reqrepSender) run(payload []byte) {
	_, err := s.out.Write(payload)
	if err == nil {
		// Outside s.mu: abort must be able to cut a FIN that waits. An
		// abort before it makes Finish fail Canceled.
		_, err = s.out.Finish()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.aborted {
		err = errs.Wrap(errs.KindCanceled, err, "the request was abandoned before it was finished")
	}
	s.finished = err == nil
	s.err = err
}

// abort resets an unfinished request (RESET_STREAM CANCELED); the cancel
// also unblocks a Write waiting for flow control or a FIN waiting for room.
func (s *reqrepSender) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.finished && !s.aborted {
		s.aborted = true
		s.out.cancelUnfinished()
	}
}

// Abandon resets both halves: the exchange's context ended.
func (s *reqrepSender) Abandon() {
	s.abort()
	_ = s.reply.Close()
}

// wait waits for the writer and reports whether the FIN went out, or why not.
func (s *reqrepSender) wait() (finished bool, err error) {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finished, s.err
}

// Replier is the answering side of Req/Rep: a path that accepts exchanges
// only, from one fair bounded queue (Config.EndpointQueue); a full queue
// stalls the requesters' opens. One-way transfers at its path are refused
// UNSUPPORTED.
type Replier struct {
	l       *Listener
	path    string
	q       *queueRoute
	watches ctxwatch.Set // what abandons reads and replies when their contexts end
}

// Replier registers a replier at path.
func (l *Listener) Replier(path string) (*Replier, error) {
	q := newQueueRoute(l.rt.cfg.EndpointQueue, false, true)
	if err := l.register(path, q); err != nil {
		return nil, err
	}
	return &Replier{l: l, path: path, q: q}, nil
}

// Replier registers a replier at path on the binding's listener (every
// binding of a listener serves the same paths).
func (b *Binding) Replier(path string) (*Replier, error) { return b.rt.listener.Replier(path) }

// Path is the registered path.
func (r *Replier) Path() string { return r.path }

// Accept waits for the next request and reads its whole payload under the
// ceiling maxBytes. It fails only when ctx ends or the replier is closed.
//
// One requester's failure does not fail the replier: a request above the
// ceiling is refused (the requester sees Rejected), and one whose requester
// reset it or whose connection ended is dropped; in both cases Accept moves
// on to the next request. When ctx ends during a read, that request is
// refused too.
func (r *Replier) Accept(ctx context.Context, maxBytes int64) (*Request, error) {
	return r.AcceptAppend(ctx, nil, maxBytes)
}

// AcceptAppend is Accept appending the request's payload to dst, a buffer
// the caller lends (nil is Accept): once it has the room, a request
// allocates nothing for its payload. The ceiling applies to the payload
// alone. The Request's Payload shares dst's array, so dst may be reused
// once the caller is done with the request (Reply returns only once the
// reply's bytes left the payload).
func (r *Replier) AcceptAppend(ctx context.Context, dst []byte, maxBytes int64) (*Request, error) {
	if maxBytes < 0 {
		return nil, errs.New(errs.KindRuntime, "accept: maxBytes must not be negative, got %d", maxBytes)
	}
	for {
		it, err := r.q.next(ctx)
		if err != nil {
			return nil, err
		}
		// The exchange and the Request it becomes in one allocation.
		accepted := &struct {
			ex  IncomingExchange
			req Request
		}{}
		ex, req := &accepted.ex, &accepted.req
		ex.init(it.ex)
		r.watches.Watch(ctx, &req.watch, (*refuseOnEnd)(&ex.req))
		body, err := collectAppend(ex.req.in, dst, maxBytes)
		r.watches.Unwatch(&req.watch) // ctx.Err tells below whether it refused the read
		switch {
		case err == nil:
			req.ex, req.payload, req.watches = ex, body, &r.watches
			return req, nil
		case ctx.Err() != nil:
			_ = ex.Refuse()
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "accept abandoned: the request being read was refused")
		case errs.KindOf(err) == errs.KindLimitExceeded:
			_ = ex.Refuse()
		default:
			_ = ex.Close()
		}
	}
}

// AcceptStream waits for the next exchange without reading it: the
// streamed form, for requests too large to hold or replies written while
// the request still arrives.
func (r *Replier) AcceptStream(ctx context.Context) (*IncomingExchange, error) {
	it, err := r.q.next(ctx)
	if err != nil {
		return nil, err
	}
	return newIncomingExchange(it.ex), nil
}

// Close unregisters the path; queued exchanges are refused UNKNOWN_ENDPOINT
// and blocked Accept calls return Canceled.
func (r *Replier) Close() error {
	r.l.unregister(r.path, r.q)
	r.q.close()
	r.watches.Close()
	return nil
}
