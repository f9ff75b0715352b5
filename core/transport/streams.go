package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// OutStream is one outgoing stream half: a header already written, then
// payload until Finish (FIN) or Cancel (RESET). Writes go straight to QUIC:
// no goroutine hop and no lock on the payload path. Write, Finish and Cancel
// follow io.Writer's rule (one writer), except that Cancel may be called from
// another goroutine to unblock a Write.
type OutStream struct {
	c       *Conn
	s       sendHalf
	receipt *Receipt // &rc: inline, one allocation per stream
	pending []byte   // the frame header, sent with the first payload bytes
	written int64
	state   outState
	mu      sync.Mutex // guards state against a concurrent Cancel
	rc      Receipt
	// header backs pending for the usual small header (it grows on the heap
	// when larger); AppendFrame writes preamble and header into it.
	header [outHeaderInline]byte
}

// outHeaderInline covers a preamble and a small DATA header, such as an
// exchange's path and content length.
const outHeaderInline = 64

// coalesceMax is the largest first write that is copied behind the header
// so both leave in one stream write (one STREAM frame for small messages).
const coalesceMax = 16 << 10

// coalesceBuffers hold header + first write; quic-go copies what it keeps,
// so a buffer is reusable once Write returns.
var coalesceBuffers = sync.Pool{New: func() any { b := make([]byte, 0, coalesceMax+wire.MaxPreambleLen+256); return &b }}

type outState uint8

const (
	outOpen outState = iota
	outFinished
	outCanceled
)

func newOutStream(c *Conn, s sendHalf) *OutStream {
	o := new(OutStream)
	o.init(c, s)
	return o
}

// init sets up a zero OutStream in place (OpenBi allocates it beside its
// ReplyHalf).
func (o *OutStream) init(c *Conn, s sendHalf) {
	o.c, o.s = c, s
	o.receipt = &o.rc
	c.receipts.watchInto(o.receipt, s.StreamID())
}

// writeFrame prepares a preamble and header, checking the peer's header
// limit first (PROTOCOL.md §5.3: never send a header the peer would refuse).
// The header leaves with the first payload bytes, or at Finish.
func (o *OutStream) writeFrame(kind wire.Kind, h wire.HeaderAppender) error {
	buf := wire.AppendFrame(o.header[:0], kind, h)
	if n, _, _ := wire.ParseVarint(buf[2:]); n > o.c.agreed.SendMaxHeaderBytes {
		o.Cancel()
		return errs.New(errs.KindLimitExceeded, "a header of %d bytes exceeds the peer's max_header_bytes %d", n, o.c.agreed.SendMaxHeaderBytes)
	}
	o.pending = buf
	return nil
}

// Write writes payload bytes; errors are typed (refusal, ConnectionLost, Canceled).
func (o *OutStream) Write(p []byte) (int, error) {
	if hdr := o.pending; hdr != nil {
		o.pending = nil
		if len(p) <= coalesceMax {
			bp := coalesceBuffers.Get().(*[]byte)
			buf := append(append((*bp)[:0], hdr...), p...)
			n, err := o.write(buf)
			*bp = buf
			coalesceBuffers.Put(bp)
			return max(n-len(hdr), 0), err
		}
		if _, err := o.write(hdr); err != nil {
			return 0, err
		}
	}
	return o.write(p)
}

func (o *OutStream) write(p []byte) (int, error) {
	n, err := o.s.Write(p)
	o.written += int64(n)
	if err != nil {
		err = writeError(err)
		o.receipt.tracker.settle(o.receipt, err)
	}
	return n, err
}

// Finish queues the FIN and returns the receipt. Finish is synchronous: the
// bytes reach the peer with no local handle kept alive.
func (o *OutStream) Finish() (*Receipt, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch o.state {
	case outFinished:
		return nil, errs.New(errs.KindNoReply, "the transfer was already finished")
	case outCanceled:
		return nil, errs.New(errs.KindCanceled, "the transfer was canceled")
	}
	if hdr := o.pending; hdr != nil {
		o.pending = nil
		if _, err := o.write(hdr); err != nil {
			o.state = outCanceled
			return nil, err
		}
	}
	o.state = outFinished
	if o.c.local != nil {
		return o.finishLocal()
	}
	o.receipt.tracker.finish(o.receipt, o.written)
	if err := o.s.Close(); err != nil {
		if o.refusedBeforeFinish() {
			return o.receipt, nil // the refusal surfaces from the receipt
		}
		e := errs.Wrap(errs.KindCanceled, err, "finish failed")
		o.receipt.tracker.settle(o.receipt, e)
		return nil, e
	}
	return o.receipt, nil
}

// refusedBeforeFinish reports whether the peer's STOP_SENDING is why the
// FIN could not be queued. quic-go cancels the stream while it handles the
// frame and reports the frame to the receipt tracker right after, so the
// receipt resolves at once (or with the connection's end); the refusal is
// then the receipt's outcome, as SEMANTICS.md §6.3 wants it.
func (o *OutStream) refusedBeforeFinish() bool {
	select {
	case <-o.receipt.Done():
	case <-o.c.done:
		<-o.receipt.Done() // the connection's end resolves every receipt
	}
	switch errs.KindOf(o.receipt.Err()) {
	case errs.KindRejected, errs.KindUnknownEndpoint, errs.KindUnsupported, errs.KindLimitExceeded, errs.KindCanceled:
		return true
	}
	return false
}

// finishLocal queues the FIN on a local stream. Once it is in the peer's
// buffer (in-process pipe or kernel socket buffer) the peer's transport
// holds every byte and the FIN, so the receipt resolves now; a reader that
// stopped first makes it a refusal instead (SEMANTICS.md §2.11).
func (o *OutStream) finishLocal() (*Receipt, error) {
	err := o.s.Close()
	if err == nil {
		o.receipt.tracker.settle(o.receipt, nil)
		return o.receipt, nil
	}
	e := writeError(err)
	o.receipt.tracker.settle(o.receipt, e)
	if k := errs.KindOf(e); k == errs.KindConnectionLost || k == errs.KindNegotiation || k == errs.KindProtocol {
		return nil, e // before the FIN: a definite loss, like a failed write
	}
	return o.receipt, nil
}

// Cancel abandons the transfer: RESET_STREAM(CANCELED). The reader never
// sees it as complete. Cancel after Finish resets the stream too (expiry
// semantics) unless the receipt already resolved.
func (o *OutStream) Cancel() { o.CancelWith(wire.CodeCanceled) }

// CancelWith resets the stream with code (CANCELED or SHUTDOWN).
func (o *OutStream) CancelWith(code wire.AppCode) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state == outCanceled {
		return
	}
	o.state = outCanceled
	o.s.CancelWrite(quic.StreamErrorCode(code))
	o.receipt.tracker.settle(o.receipt, errs.New(errs.KindCanceled, "the transfer was canceled locally"))
}

// Receipt is this half's transport receipt.
func (o *OutStream) Receipt() *Receipt { return o.receipt }

// Written counts the bytes written so far, header included.
func (o *OutStream) Written() int64 { return o.written }

// Conn is the connection carrying the stream.
func (o *OutStream) Conn() *Conn { return o.c }

// InStream is one inbound stream half whose DATA header was read.
type InStream struct {
	c      *Conn
	s      recvHalf
	Header wire.Data
	eof    atomic.Bool // Refuse may run beside a Read (a ctx ending mid-read)
}

func newInStream(c *Conn, s recvHalf, h wire.Data) *InStream {
	return &InStream{c: c, s: s, Header: h}
}

// Read reads payload; io.EOF marks the FIN. A reset surfaces as a typed
// error (Canceled for CANCELED), never as EOF.
func (i *InStream) Read(p []byte) (int, error) {
	n, err := i.s.Read(p)
	if err == io.EOF {
		i.eof.Store(true)
	}
	return n, readError(err)
}

// Refuse stops the sender: STOP_SENDING(code), e.g. REJECTED or
// UNKNOWN_ENDPOINT. Harmless after EOF.
func (i *InStream) Refuse(code wire.AppCode) {
	if !i.eof.Load() {
		i.s.CancelRead(quic.StreamErrorCode(code))
	}
}

// AtEOF reports whether the FIN was read.
func (i *InStream) AtEOF() bool { return i.eof.Load() }

// Conn is the connection carrying the stream.
func (i *InStream) Conn() *Conn { return i.c }

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
	e := &Exchange{s: s, c: c}
	e.in = InStream{c: c, s: s, Header: h}
	e.In = &e.in
	return e
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
	if err := o.writeFrame(wire.KindData, h); err != nil {
		return nil, err
	}
	return o, nil
}

// ReplyError answers with ERROR {code} + FIN (codes of PROTOCOL.md §10.1).
// It reports false when the exchange was already answered.
func (e *Exchange) ReplyError(code uint64) bool {
	if !e.claim() {
		return false
	}
	f := wire.ErrorFrame{Code: code}
	_, _ = e.s.Write(wire.AppendFrame(nil, wire.KindError, &f))
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
}

// Recv waits for the reply header. ERROR frames become typed errors; a lost
// connection is Indeterminate (the request may have been acted on); ctx
// ending abandons the reply with STOP_SENDING(CANCELED).
func (r *ReplyHalf) Recv(ctx context.Context) (*InStream, error) {
	if ctx.Done() != nil { // a context that can end abandons the reply when it does
		stop := context.AfterFunc(ctx, func() { r.s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled)) })
		defer stop()
	}
	p, err := r.c.readPreamble(r.s)
	if err == nil {
		var hdr []byte
		if hdr, err = r.c.readHeaderBody(r.s, p); err == nil {
			return r.decode(p.Kind, hdr)
		}
	}
	if ctx.Err() != nil {
		return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "reply abandoned")
	}
	return nil, replyLoss(err)
}

func (r *ReplyHalf) decode(kind wire.Kind, hdr []byte) (*InStream, error) {
	switch kind {
	case wire.KindData:
		d, err := wire.DecodeData(hdr)
		if err != nil {
			r.c.violation(err.Error())
			return nil, errs.Wrap(errs.KindProtocol, err, "bad reply header")
		}
		if !r.inTaken.CompareAndSwap(false, true) {
			return newInStream(r.c, r.s, d), nil
		}
		r.in = InStream{c: r.c, s: r.s, Header: d}
		return &r.in, nil
	case wire.KindError:
		f, err := wire.DecodeError(hdr)
		if err != nil {
			r.c.violation(err.Error())
			return nil, errs.Wrap(errs.KindProtocol, err, "bad ERROR frame")
		}
		return nil, errorFrameError(f.Code)
	}
	r.c.violation("reply half must carry DATA or ERROR, not " + kindName(kind))
	return nil, errs.New(errs.KindProtocol, "the reply half carried a %s frame", kindName(kind))
}

// Cancel abandons the reply: STOP_SENDING(CANCELED).
func (r *ReplyHalf) Cancel() { r.s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled)) }

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

// errorFrameError maps an ERROR frame code (PROTOCOL.md §10.1).
func errorFrameError(code uint64) error {
	switch code {
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
	return errs.New(errs.KindTransport, "the peer answered with unknown ERROR code %d", code)
}

// OpenUni opens a one-way transfer carrying h. It waits at the peer's uni
// stream budget (never errors for it), bounded by ctx.
func (c *Conn) OpenUni(ctx context.Context, h *wire.Data) (*OutStream, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	s, err := c.openUniStream(ctx)
	if err != nil {
		return nil, err
	}
	o := newOutStream(c, s)
	if err := o.writeFrame(wire.KindData, h); err != nil {
		return nil, err
	}
	return o, nil
}

// OpenBi opens an exchange whose initiating half carries h.
func (c *Conn) OpenBi(ctx context.Context, h *wire.Data) (*OutStream, *ReplyHalf, error) {
	if err := c.Err(); err != nil {
		return nil, nil, err
	}
	s, err := c.openBidiStream(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Both halves in one allocation: they live as long as the exchange.
	halves := &struct {
		out   OutStream
		reply ReplyHalf
	}{reply: ReplyHalf{c: c, s: s}}
	o := &halves.out
	o.init(c, s)
	if err := o.writeFrame(wire.KindData, h); err != nil {
		s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
		return nil, nil, err
	}
	return o, &halves.reply, nil
}

// OpenControl writes a header-only frame (SUBSCRIBE, UNSUBSCRIBE, CREDIT) on
// its own short uni stream and finishes it.
func (c *Conn) OpenControl(ctx context.Context, kind wire.Kind, h wire.HeaderAppender) (*Receipt, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	s, err := c.openUniStream(ctx)
	if err != nil {
		return nil, err
	}
	o := newOutStream(c, s)
	if err := o.writeFrame(kind, h); err != nil {
		return nil, err
	}
	return o.Finish()
}

// uniSend is an opened one-way stream: a QUIC send stream, or a local
// stream the peer will take one way or answer by path.
type uniSend interface {
	sendHalf
	TryWriteAll([]byte) error
}

// openUniStream opens a stream for a one-way frame, waiting at the peer's
// budget (uni stream credit, or max_local_streams), bounded by ctx.
func (c *Conn) openUniStream(ctx context.Context) (uniSend, error) {
	if c.local != nil {
		s, err := c.local.open(ctx, false)
		if err != nil {
			return nil, openError(ctx, err)
		}
		return s, nil
	}
	s, err := c.qc.OpenUniStreamSync(ctx)
	if err != nil {
		return nil, c.quicOpenError(ctx, err)
	}
	c.receipts.credit.countOpened(streamUni)
	return s, nil
}

// openBidiStream opens a stream for an exchange; see openUniStream.
func (c *Conn) openBidiStream(ctx context.Context) (bidiHalf, error) {
	if c.local != nil {
		s, err := c.local.open(ctx, true)
		if err != nil {
			return nil, openError(ctx, err)
		}
		return s, nil
	}
	s, err := c.qc.OpenStreamSync(ctx)
	if err != nil {
		return nil, c.quicOpenError(ctx, err)
	}
	c.receipts.credit.countOpened(streamBidi)
	return s, nil
}

func openError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "open abandoned")
	}
	return lossError(err)
}

// quicOpenError is openError for a QUIC open. Apart from its context
// ending or a stream limit (OpenUniNow, flows), quic-go fails an open only
// once the connection is closed, and it does so a few milliseconds before
// the connection's context ends, which is what watchClose waits on. The
// Conn ends here at once with the same cause, so that Err reports it and a
// dialer stops choosing a connection that cannot open streams. The Handler
// hears of it from watchClose as before.
func (c *Conn) quicOpenError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return openError(ctx, err)
	}
	e := lossError(err)
	c.end(e)
	return e
}
