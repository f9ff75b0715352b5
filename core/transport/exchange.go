package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/ctxwatch"
	"github.com/weida-go/weida/core/wire"
)

// Exchange is an inbound exchange on the responder side: the request half
// (In) and the reply half, which carries exactly one DATA or ERROR.
type Exchange struct {
	In      *InStream // &in: the exchange, both halves in one allocation
	in      InStream
	out     OutStream // the reply half, once Reply opened it
	s       bidiHalf
	c       *Conn
	replied sync.Once
}

func newExchange(c *Conn, s bidiHalf, h wire.Data) *Exchange {
	e := &Exchange{}
	e.in.Header = h
	e.init(c, s)
	return e
}

// init sets up a zero Exchange whose request header was decoded in place.
func (e *Exchange) init(c *Conn, s bidiHalf) {
	e.s, e.c = s, c
	e.in.c, e.in.s = c, s
	e.In = &e.in
}

func (e *Exchange) claim() bool {
	first := false
	e.replied.Do(func() { first = true })
	return first
}

// Reply opens the reply half with a DATA header (h may be the empty map).
func (e *Exchange) Reply(h *wire.Data) (*OutStream, error) {
	if !e.claim() {
		return nil, errs.New(errs.KindNoReply, "the exchange was already answered")
	}
	o := &e.out
	o.init(e.c, e.s)
	if err := o.writeData(h); err != nil {
		return nil, err
	}
	return o, nil
}

// ReplyError answers with ERROR {code} + FIN (codes of PROTOCOL.md §10.1).
// It reports false when the exchange was already answered.
func (e *Exchange) ReplyError(code uint64) bool {
	return e.ReplyErrorFrame(&wire.ErrorFrame{Code: code})
}

// ReplyErrorFrame answers with the ERROR f + FIN (NOT_LEADER carries keys
// beyond the code). It reports false when the exchange was already answered.
func (e *Exchange) ReplyErrorFrame(f *wire.ErrorFrame) bool {
	if !e.claim() {
		return false
	}
	_, _ = e.s.Write(wire.AppendFrame(nil, wire.KindError, f))
	_ = e.s.Close()
	return true
}

// Refuse answers with ERROR {errorCode} and stops the request half with
// stopCode (the dispatch refusal of PROTOCOL.md §11.4).
func (e *Exchange) Refuse(errorCode uint64, stopCode wire.AppCode) {
	e.ReplyError(errorCode)
	e.In.Refuse(stopCode)
}

// Canceled is closed when the requester abandoned the reply
// (STOP_SENDING on the reply half) or the connection ended.
func (e *Exchange) Canceled() <-chan struct{} { return e.s.Context().Done() }

// Conn is the connection carrying the exchange.
func (e *Exchange) Conn() *Conn { return e.c }

// ReplyHalf is the requester's view of an exchange's reply half.
type ReplyHalf struct {
	c *Conn
	s bidiHalf
	// in is the reply Recv returns, allocated with the exchange; inTaken
	// hands it out once (a misused second Recv gets its own).
	in      InStream
	inTaken atomic.Bool
	// watch is the half's place among what its connection abandons when
	// a context ends, while Recv waits (core/internal/ctxwatch).
	watch ctxwatch.Entry
}

// abandonReply is a reply half whose Recv waits: abandoning it stops the
// reply (STOP_SENDING CANCELED).
type abandonReply ReplyHalf

func (r *abandonReply) Abandon() { r.s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled)) }

// Recv waits for the reply header. ERROR frames become typed errors; a lost
// connection is Indeterminate (the request may have been acted on); ctx
// ending abandons the reply with STOP_SENDING(CANCELED).
func (r *ReplyHalf) Recv(ctx context.Context) (*InStream, error) {
	if r.c.replyWatches.Watch(ctx, &r.watch, (*abandonReply)(r)) { // a context that can end abandons the reply
		defer r.c.replyWatches.Unwatch(&r.watch)
	}
	p, hdr, la, err := r.readHead()
	if err == nil {
		in, err := r.decode(p.Kind, hdr) // copies out what it keeps of hdr
		if err == nil {
			in.attach(la)
		} else if la != nil {
			la.release()
		}
		return in, err
	}
	if ctx.Err() != nil {
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "reply abandoned")
	}
	return nil, replyLoss(err)
}

// readHead reads the reply's preamble and header: with what arrived with
// them on QUIC (lookahead.go), the plain way on a local transport.
func (r *ReplyHalf) readHead() (wire.Preamble, []byte, *lookahead, error) {
	if r.c.local == nil {
		return r.c.readHeadAhead(r.s, false)
	}
	p, err := r.c.readPreamble(r.s)
	if err != nil {
		return p, nil, nil, err
	}
	hdr, err := r.c.readHeaderBody(r.s, p)
	return p, hdr, nil, err
}

// data decodes the reply's DATA header into the reply transfer.
func (r *ReplyHalf) data(hdr []byte) (*InStream, error) {
	in := &r.in
	if !r.inTaken.CompareAndSwap(false, true) {
		in = new(InStream) // a misused second Recv still gets its own
	}
	if err := in.Header.Decode(hdr); err != nil {
		r.c.violation(err.Error())
		return nil, errs.Wrap(errs.KindProtocol, err, "bad reply header")
	}
	in.c, in.s = r.c, r.s
	return in, nil
}

func (r *ReplyHalf) decode(kind wire.Kind, hdr []byte) (*InStream, error) {
	switch kind {
	case wire.KindData:
		return r.data(hdr)
	case wire.KindError:
		f, err := wire.DecodeError(hdr)
		if err != nil {
			r.c.violation(err.Error())
			return nil, errs.Wrap(errs.KindProtocol, err, "bad ERROR frame")
		}
		return nil, errorFrameError(&f)
	}
	r.c.violation("reply half must carry DATA or ERROR, not " + kindName(kind))
	return nil, errs.New(errs.KindProtocol, "the reply half carried a %s frame", kindName(kind))
}

// Cancel abandons the reply: STOP_SENDING(CANCELED). The reply transfer
// hands out nothing more, not even what it read ahead.
func (r *ReplyHalf) Cancel() {
	r.in.refused.Store(true)
	r.s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
}

// replyLoss relabels a connection loss while waiting for a reply as
// Indeterminate (SEMANTICS.md §6.3): never ConnectionLost.
func replyLoss(err error) error {
	var v *wire.ViolationError
	if errors.As(err, &v) {
		// The reply half itself was malformed: this side closed the
		// connection for it, and the outcome is a protocol failure.
		return errs.Wrap(errs.KindProtocol, err, "the reply half was malformed")
	}
	e := readError(err)
	if e == io.EOF || errs.KindOf(e) == 0 {
		return errs.New(errs.KindProtocol, "the reply half ended before its header")
	}
	if k := errs.KindOf(e); k == errs.KindConnectionLost || k == errs.KindProtocol || k == errs.KindNegotiation {
		ee := e.(*errs.Error)
		return &errs.Error{Kind: errs.KindIndeterminate, Cause: ee.Cause, Err: e,
			Msg: "outcome unknown: the connection ended before a reply arrived (" + ee.Msg + ")"}
	}
	return e
}

// errorFrameError maps an ERROR frame (PROTOCOL.md §10.1).
func errorFrameError(f *wire.ErrorFrame) error {
	switch code := f.Code; code {
	case wire.ErrorNotLeader:
		nl := &errs.NotLeader{Leader: f.Leader.V, Term: f.Term.V, HasTerm: f.Term.Ok}
		return &errs.Error{Kind: errs.KindRejected, Msg: "the peer refused the request: " + nl.Error(), Err: nl}
	case wire.ErrorUnknownEndpoint:
		return errs.New(errs.KindUnknownEndpoint, "no endpoint is registered at that path")
	case wire.ErrorRejected:
		return errs.New(errs.KindRejected, "the peer rejected the request")
	case wire.ErrorUnsupported:
		return errs.New(errs.KindUnsupported, "the path does not serve exchanges")
	case wire.ErrorNoReply:
		return errs.New(errs.KindNoReply, "the request was taken and no reply will come")
	case wire.ErrorInternal:
		return errs.New(errs.KindTransport, "the peer failed internally")
	}
	return errs.New(errs.KindTransport, "the peer answered with unknown ERROR code %d", f.Code)
}
