package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/faults"
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
	pending []byte // the frame header, sent with the first payload bytes
	written int64
	state   outState
	mu      sync.Mutex // guards state against a concurrent Cancel
	rc      Receipt    // this half's receipt, inline: one allocation per stream
	// unwatched is a half whose receipt is not tracked (OpenUniUnwatched).
	unwatched bool
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
	// outFinishing is a local FIN being written outside the lock (a unix
	// socket's can wait for room): Finish may not run again, and
	// CancelUnfinished still cuts it.
	outFinishing
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
func (o *OutStream) init(c *Conn, s sendHalf) { o.setUp(c, s, true) }

// setUp is init, tracking the half's receipt only when watched. An
// unwatched receipt is never in the tracker's map: settling it (a failed
// write, a Cancel) only marks it resolved.
func (o *OutStream) setUp(c *Conn, s sendHalf, watched bool) {
	o.c, o.s = c, s
	if watched {
		c.receipts.watchInto(&o.rc, s.StreamID())
		return
	}
	o.unwatched = true
	o.rc.tracker, o.rc.stream, o.rc.final = c.receipts, s.StreamID(), -1
}

// writeFrame prepares a preamble and header, checking the peer's header
// limit first (PROTOCOL.md §5.3: never send a header the peer would refuse).
// The header leaves with the first payload bytes, or at Finish.
func (o *OutStream) writeFrame(kind wire.Kind, h wire.HeaderAppender) error {
	return o.setFrame(wire.AppendFrame(o.header[:0], kind, h))
}

// writeData is writeFrame for DATA; h does not escape (AppendDataFrame), so
// callers may keep it on their stacks.
func (o *OutStream) writeData(h *wire.Data) error {
	return o.setFrame(wire.AppendDataFrame(o.header[:0], h))
}

// Restamp replaces the DATA header of a one-way transfer that has written
// nothing yet, checking it against the peer's limit as the open did (a
// header it would refuse resets the stream, with a LimitExceeded error). A
// sender draws a transfer's sequence number only once it holds the
// transfer's stream, so a send that fails before that spends none.
func (o *OutStream) Restamp(h *wire.Data) error {
	if o.pending == nil || o.written != 0 {
		return errs.New(errs.KindRuntime, "restamp: the transfer's header was already written")
	}
	return o.writeData(h)
}

// setFrame makes buf, a preamble and header, the pending frame start.
func (o *OutStream) setFrame(buf []byte) error {
	if n, _, _ := wire.ParseVarint(buf[2:]); n > o.c.agreed.SendMaxHeaderBytes {
		o.Cancel()
		return errs.New(errs.KindLimitExceeded, "a header of %d bytes exceeds the peer's max_header_bytes %d", n, o.c.agreed.SendMaxHeaderBytes)
	}
	o.pending = buf
	return nil
}

// Write writes payload bytes; errors are typed (refusal, ConnectionLost, Canceled).
func (o *OutStream) Write(p []byte) (int, error) {
	hdr := o.pending
	if hdr == nil {
		return o.write(p)
	}
	// The header leaves with the first payload bytes, up to coalesceMax of
	// them: a header written alone could go out in a packet of its own.
	o.pending = nil
	first := p[:min(len(p), coalesceMax)]
	bp := coalesceBuffers.Get().(*[]byte)
	buf := append(append((*bp)[:0], hdr...), first...)
	n, err := o.write(buf)
	*bp = buf
	coalesceBuffers.Put(bp)
	n = max(n-len(hdr), 0)
	if err != nil || len(first) == len(p) {
		return n, err
	}
	m, err := o.write(p[len(first):])
	return n + m, err
}

func (o *OutStream) write(p []byte) (int, error) {
	n, err := o.s.Write(p)
	o.written += int64(n)
	if err != nil {
		err = writeError(err)
		o.rc.tracker.settle(&o.rc, err)
	}
	return n, err
}

// Finish queues the FIN and returns the receipt. Finish is synchronous: the
// bytes reach the peer with no local handle kept alive.
func (o *OutStream) Finish() (*Receipt, error) {
	if err := o.finishable(); err != nil {
		return nil, err
	}
	// A header still pending (no payload was written) leaves first, outside
	// the lock: its write may wait for flow-control room, and a Cancel from
	// another goroutine must be able to take the lock to unblock it.
	if hdr := o.pending; hdr != nil {
		o.pending = nil
		if _, err := o.write(hdr); err != nil {
			o.mu.Lock()
			o.state = outCanceled
			o.mu.Unlock()
			return nil, err
		}
	}
	o.mu.Lock()
	if err := o.finishableLocked(); err != nil { // a Cancel during the write
		o.mu.Unlock()
		return nil, err
	}
	if o.c.local != nil {
		// A unix socket's FIN waits while the socket is full: outside the
		// lock, so that a Cancel (a context's end) can cut it short.
		o.state = outFinishing
		o.mu.Unlock()
		rc, err := o.finishLocal()
		if f := faults.LocalFINQueued.Load(); f != nil {
			(*f)()
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.state != outCanceled {
			o.state = outFinished
		} else if o.rc.Err() != nil {
			// The cancel cut the FIN (which settled the receipt Canceled);
			// one that came after the FIN was queued changes nothing.
			return nil, errs.New(errs.KindCanceled, "the transfer was canceled while its FIN waited")
		}
		return rc, err
	}
	o.state = outFinished
	defer o.mu.Unlock()
	if o.unwatched {
		return nil, o.finishUnwatched()
	}
	o.rc.tracker.finish(&o.rc, o.written)
	if err := o.s.Close(); err != nil {
		if o.refusedBeforeFinish() {
			return &o.rc, nil // the refusal surfaces from the receipt
		}
		e := errs.Wrap(errs.KindCanceled, err, "finish failed")
		o.rc.tracker.settle(&o.rc, e)
		return nil, e
	}
	return &o.rc, nil
}

// finishUnwatched queues the FIN of a half with no receipt; a refusal
// that came first is its error, typed by the peer's STOP_SENDING code.
func (o *OutStream) finishUnwatched() error {
	err := o.s.Close()
	if err == nil {
		return nil
	}
	if s, ok := o.s.(interface{ Context() context.Context }); ok {
		var se *quic.StreamError
		if errors.As(context.Cause(s.Context()), &se) {
			return writeError(se)
		}
	}
	return errs.Wrap(errs.KindCanceled, err, "finish failed")
}

// finishable says why Finish may not run: the transfer finished or was
// canceled already.
func (o *OutStream) finishable() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.finishableLocked()
}

func (o *OutStream) finishableLocked() error {
	switch o.state {
	case outFinishing, outFinished:
		return errs.New(errs.KindNoReply, "the transfer was already finished")
	case outCanceled:
		return errs.New(errs.KindCanceled, "the transfer was canceled")
	}
	return nil
}

// refusedBeforeFinish reports whether the peer's STOP_SENDING is why the
// FIN could not be queued. quic-go cancels the stream while it handles the
// frame and reports the frame to the receipt tracker right after, so the
// receipt resolves at once (or with the connection's end); the refusal is
// then the receipt's outcome, as SEMANTICS.md §6.3 wants it.
func (o *OutStream) refusedBeforeFinish() bool {
	select {
	case <-o.rc.Done():
	case <-o.c.done:
		<-o.rc.Done() // the connection's end resolves every receipt
	}
	switch errs.KindOf(o.rc.Err()) {
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
		o.rc.tracker.settle(&o.rc, nil)
		return &o.rc, nil
	}
	e := writeError(err)
	o.rc.tracker.settle(&o.rc, e)
	if k := errs.KindOf(e); k == errs.KindConnectionLost || k == errs.KindNegotiation || k == errs.KindProtocol {
		return nil, e // before the FIN: a definite loss, like a failed write
	}
	return &o.rc, nil
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
	o.cancelLocked(code)
}

// CancelUnfinished is Cancel unless the FIN is already queued: a sender
// whose context ends around its Finish abandons a FIN still waiting (for
// room in a full unix socket) without resetting a transfer that got out
// whole.
func (o *OutStream) CancelUnfinished() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state == outOpen || o.state == outFinishing {
		o.cancelLocked(wire.CodeCanceled)
	}
}

func (o *OutStream) cancelLocked(code wire.AppCode) {
	o.state = outCanceled
	o.s.CancelWrite(quic.StreamErrorCode(code))
	o.rc.tracker.settle(&o.rc, errCanceledLocally())
}

// Receipt is this half's transport receipt; nil for an unwatched half.
func (o *OutStream) Receipt() *Receipt {
	if o.unwatched {
		return nil
	}
	return &o.rc
}

// Written counts the bytes written so far, header included.
func (o *OutStream) Written() int64 { return o.written }

// Conn is the connection carrying the stream.
func (o *OutStream) Conn() *Conn { return o.c }

// InStream is one inbound stream half whose DATA header was read.
type InStream struct {
	c      *Conn
	s      recvHalf
	Header wire.Data
	// ahead is the payload read with the header, handed out first, then
	// aheadErr, what that read returned after it (io.EOF for the FIN); nil
	// once drained. Its bytes are in aheadBuf, the pooled read buffer, or
	// in inline for a small whole payload (lookahead.go).
	ahead    []byte
	aheadErr error
	aheadBuf *lookahead
	inline   [inlineWhole]byte
	eof      atomic.Bool // Refuse may run beside a Read (a ctx ending mid-read)
	// refused is set by Refuse: the lookahead is then no longer handed
	// out, as quic-go hands out nothing buffered once a read is canceled.
	refused atomic.Bool
	// credit is the QUIC stream of a one-way transfer whose lookahead may
	// hold its FIN: quic-go gives the peer the stream's credit back only
	// once it is released here, at the read's end or a refusal, so a
	// transfer nobody read still pins one stream of the peer's budget
	// (uniahead.go). Nil when the credit was never held back.
	credit creditHolder
}

// creditHolder is a stream whose credit returns to the peer only when
// released (quic.Config.RequireStreamCreditRelease).
type creditHolder interface{ ReleaseStreamCredit() }

// ended gives the stream's credit back once its reading is over.
func (i *InStream) ended() {
	if i.credit != nil {
		i.credit.ReleaseStreamCredit()
	}
}

func newInStream(c *Conn, s recvHalf, h wire.Data) *InStream {
	return &InStream{c: c, s: s, Header: h}
}

// Read reads payload; io.EOF marks the FIN. A reset surfaces as a typed
// error (Canceled for CANCELED), never as EOF.
func (i *InStream) Read(p []byte) (int, error) {
	if i.ahead != nil {
		if i.refused.Load() {
			i.dropAhead()
			return 0, errs.New(errs.KindCanceled, "the read was canceled locally")
		}
		return i.readAhead(p)
	}
	n, err := i.s.Read(p)
	if err == io.EOF {
		i.eof.Store(true)
	}
	if err != nil {
		i.ended()
	}
	return n, readError(err)
}

// TakeWhole hands out the whole payload when the read that brought the
// header also brought every payload byte and the FIN, and they are at most
// maxBytes: a copy of exactly their size, the stream then at its end. It
// reports false, having taken nothing, otherwise; the caller reads on.
func (i *InStream) TakeWhole(maxBytes int64) ([]byte, bool) {
	if !i.whole(maxBytes) {
		return nil, false
	}
	return i.AppendWhole(make([]byte, 0, len(i.ahead)), maxBytes)
}

// AppendWhole is TakeWhole appending the payload to dst, the caller's
// buffer, so a receive that lends one allocates nothing.
func (i *InStream) AppendWhole(dst []byte, maxBytes int64) ([]byte, bool) {
	if !i.whole(maxBytes) {
		return nil, false
	}
	body := append(dst, i.ahead...)
	i.dropAhead()
	i.eof.Store(true)
	i.ended()
	return body, true
}

// whole reports whether the lookahead holds the whole payload, at most
// maxBytes, and the FIN.
func (i *InStream) whole(maxBytes int64) bool {
	return i.ahead != nil && i.aheadErr == io.EOF && int64(len(i.ahead)) <= maxBytes && !i.refused.Load()
}

// Refuse stops the sender: STOP_SENDING(code), e.g. REJECTED or
// UNKNOWN_ENDPOINT. Harmless after EOF.
func (i *InStream) Refuse(code wire.AppCode) {
	if !i.eof.Load() {
		i.refused.Store(true)
		i.s.CancelRead(quic.StreamErrorCode(code))
	}
	i.ended()
}

// AtEOF reports whether the FIN was read.
func (i *InStream) AtEOF() bool { return i.eof.Load() }

// Conn is the connection carrying the stream.
func (i *InStream) Conn() *Conn { return i.c }
