package transport

import (
	"context"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// Handler receives what a negotiated connection's peer opens. Each method
// runs on a goroutine serving that stream alone and may block (e.g. on a full endpoint
// queue, which is how QUIC flow control pushes back). A method that does not
// take what it was given must refuse it (the helpers on InStream and
// Exchange send the right codes).
type Handler interface {
	// Data is an inbound one-way transfer (uni DATA, endpoint present).
	Data(c *Conn, in *InStream)
	// Exchange is an inbound exchange (bidi, DATA on the initiating half).
	Exchange(c *Conn, ex *Exchange)
	// Control is a SUBSCRIBE, UNSUBSCRIBE (kind tells which) or CREDIT frame.
	Control(c *Conn, kind wire.Kind, sub *wire.Subscribe, credit *wire.Credit)
	// Cursor is an inbound CURSOR stream; s yields the records after the head.
	Cursor(c *Conn, head wire.CursorHead, s *CursorStream)
	// Closed is called once when the connection ended, with the reason.
	Closed(c *Conn, err error)
}

// acceptUni accepts uni streams and serves each on the accepting goroutine
// (acceptLoop): no new goroutine, and no fresh stack to grow, per message.
func (c *Conn) acceptUni() {
	acceptLoop(c, &c.acceptingUni, c.qc.AcceptUniStream, c.serveQUICUni)
}

// acceptBidi accepts exchanges and serves each on the accepting goroutine.
func (c *Conn) acceptBidi() {
	acceptLoop(c, &c.accepting, c.qc.AcceptStream, func(s *quic.Stream) bool {
		s.ReleaseStreamCredit() // its credit returns when it completed, as by default
		c.serveBidi(s)
		return true
	})
}

// maxAccepting bounds the goroutines a connection keeps waiting in each
// accept loop between streams.
const maxAccepting = 4

// acceptLoop accepts streams and serves each on the same goroutine, so the
// goroutine quic-go wakes is the one that reads the head: no hand-over to
// a worker on the message's path, and a stack that is already grown. A
// stream that blocks its server (a parked stream, a full endpoint queue, a
// FLOW stream served for its whole life) first makes sure another
// goroutine accepts (acceptors). A goroutine whose serve reports false
// stops accepting unless it is the only one.
func acceptLoop[S any](c *Conn, a *acceptors, accept func(context.Context) (S, error), serve func(S) bool) {
	defer c.wg.Done()
	for {
		s, err := accept(context.Background())
		if err != nil {
			return
		}
		if a.took() {
			c.wg.Add(1)
			go acceptLoop(c, a, accept, serve)
		}
		if !serve(s) && a.n.Load() > 0 {
			return
		}
		if !a.again() {
			return
		}
	}
}

// acceptors counts the goroutines of one accept loop that are accepting or
// about to; it is 1 when the first one starts. Before serving what it
// accepted (a Handler may block) a goroutine makes sure another one is
// accepting; after serving it accepts again unless maxAccepting already are.
type acceptors struct{ n atomic.Int32 }

// took counts one accepting goroutine as serving; true means none is left
// accepting and the caller starts another (counted already).
func (a *acceptors) took() bool {
	if a.n.Add(-1) == 0 {
		a.n.Add(1)
		return true
	}
	return false
}

// again counts a goroutine that finished serving as accepting, unless
// maxAccepting are; false means it ends.
func (a *acceptors) again() bool {
	for {
		n := a.n.Load()
		if n >= maxAccepting {
			return false
		}
		if a.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// serveUni reads a uni stream's preamble, parks it until negotiation (unless
// it is the HELLO), then reads the header and dispatches by kind. Once
// negotiated it reads ahead (uniahead.go).
func (c *Conn) serveUni(s recvHalf) {
	p, err := c.readPreamble(s)
	if err != nil {
		return
	}
	if p.Kind == wire.KindHello {
		hdr, err := c.readHeaderBody(s, p)
		if err == nil {
			c.onHello(hdr)
			finishHeaderOnly(s)
		}
		return
	}
	if p.Kind == wire.KindReport && !c.offersPathReports() {
		c.violation("REPORT without the path_report capability")
		return
	}
	if !c.awaitNegotiated() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
		return
	}
	if c.draining.Load() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeShutdown))
		return
	}
	if p.Kind == wire.KindData {
		d, readErr, err := c.readDataHeader(s, p)
		if readErr == nil {
			if err = c.dispatchDecodedData(d, err, s); err != nil {
				c.violation(err.Error())
			}
		}
		return
	}
	hdr, err := c.readHeaderBody(s, p)
	if err != nil {
		return
	}
	c.dispatchUni(p.Kind, hdr, s)
	switch p.Kind {
	case wire.KindSubscribe, wire.KindUnsubscribe, wire.KindCredit:
		finishHeaderOnly(s)
	}
}

// maxHeaderOnlyTrailer bounds what is read and ignored after the header of
// a header-only frame before the stream is stopped.
const maxHeaderOnlyTrailer = 4096

// finishHeaderOnly reads a header-only stream to its FIN. Bytes after the
// header are unspecified and ignored (PROTOCOL.md §6.2), but the FIN must be
// read: quic-go returns the stream's credit to the peer only once the stream
// completed, so an unread FIN would leak one stream of the peer's budget.
func finishHeaderOnly(s recvHalf) {
	var buf [512]byte
	read := 0
	for read <= maxHeaderOnlyTrailer {
		n, err := s.Read(buf[:])
		read += n
		if err != nil {
			return
		}
	}
	s.CancelRead(quic.StreamErrorCode(wire.CodeNoError))
}

// dispatchUni decodes a uni stream's header by kind and hands it on. Each
// kind has its own function so the per-stream goroutine keeps a small stack.
func (c *Conn) dispatchUni(kind wire.Kind, hdr []byte, s recvHalf) {
	var err error
	switch kind {
	case wire.KindData:
		err = c.dispatchData(hdr, s)
	case wire.KindSubscribe, wire.KindUnsubscribe:
		err = c.dispatchSubscribe(kind, hdr, s)
	case wire.KindCredit:
		err = c.dispatchCredit(hdr, s)
	case wire.KindCursor:
		err = c.dispatchCursor(hdr, s)
	case wire.KindFlow:
		err = c.dispatchFlow(hdr, s)
	case wire.KindReport:
		err = c.dispatchReport(hdr, s)
	case wire.KindError:
		err = &wire.ViolationError{Reason: "ERROR frame on a uni stream"}
	default:
		err = &wire.ViolationError{Reason: "unexpected frame kind on a uni stream"}
	}
	if err != nil {
		c.violation(err.Error())
	}
}

func (c *Conn) dispatchData(hdr []byte, s recvHalf) error {
	d, err := wire.DecodeData(hdr)
	return c.dispatchDecodedData(d, err, s)
}

// dispatchDecodedData hands on a uni DATA stream whose header was decoded
// into d, decodeErr being the decoder's verdict.
func (c *Conn) dispatchDecodedData(d wire.Data, decodeErr error, s recvHalf) error {
	if decodeErr == nil {
		decodeErr = d.CheckInitiating()
	}
	if decodeErr != nil {
		return decodeErr
	}
	c.handler.Data(c, newInStream(c, s, d))
	return nil
}

func (c *Conn) dispatchSubscribe(kind wire.Kind, hdr []byte, s recvHalf) error {
	sub, err := wire.DecodeSubscribe(hdr)
	if err != nil {
		return err
	}
	if kind == wire.KindSubscribe && !c.judgeSubscribe(&sub, s) {
		return nil // stopped: the FIN is not read, the read after the stop ends at once
	}
	c.handler.Control(c, kind, &sub, nil)
	return nil
}

func (c *Conn) dispatchCredit(hdr []byte, s recvHalf) error {
	cr, err := wire.DecodeCredit(hdr)
	if err != nil {
		return err
	}
	if !c.judgeCredit(&cr, s) {
		return nil // stopped, as a refused SUBSCRIBE is
	}
	c.handler.Control(c, wire.KindCredit, nil, &cr)
	return nil
}

func (c *Conn) dispatchCursor(hdr []byte, s recvHalf) error {
	head, err := wire.DecodeCursorHead(hdr)
	if err != nil {
		return err
	}
	c.handler.Cursor(c, head, &CursorStream{s: s})
	return nil
}

// dispatchFlow serves a FLOW stream for the flow's whole life (flow.go).
func (c *Conn) dispatchFlow(hdr []byte, s recvHalf) error { return c.serveFlow(hdr, s) }

// serveBidi handles an exchange: only DATA may open its initiating half.
func (c *Conn) serveBidi(s *quic.Stream) {
	if c.readsAhead() {
		c.serveBidiAhead(s)
		return
	}
	p, err := c.readPreamble(s)
	if err != nil {
		return
	}
	if p.Kind != wire.KindData {
		c.violation("a bidi stream must open with DATA, not kind " + kindName(p.Kind))
		return
	}
	if !c.awaitNegotiated() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
		s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled))
		return
	}
	if c.draining.Load() {
		s.CancelRead(quic.StreamErrorCode(wire.CodeShutdown))
		s.CancelWrite(quic.StreamErrorCode(wire.CodeShutdown))
		return
	}
	d, readErr, err := c.readDataHeader(s, p)
	if readErr != nil {
		return
	}
	if err == nil {
		err = d.CheckInitiating()
	}
	if err != nil {
		c.violation(err.Error())
		return
	}
	c.handler.Exchange(c, newExchange(c, s, d))
}

// readsAhead reports whether a new stream may read ahead (lookahead.go):
// negotiation succeeded and no drain began.
func (c *Conn) readsAhead() bool {
	select {
	case <-c.negotiated:
		return c.negErr == nil && !c.draining.Load()
	default:
		return false
	}
}

// serveBidiAhead is serveBidi on a negotiated connection: the request's
// head and first payload bytes in one read.
func (c *Conn) serveBidiAhead(s *quic.Stream) {
	p, hdr, la, err := c.readHeadAhead(s, true)
	if err == errNotData {
		c.violation("a bidi stream must open with DATA, not kind " + kindName(p.Kind))
		return
	}
	if err != nil {
		return
	}
	ex := new(Exchange)
	err = c.decodeInbound(&ex.in.Header, hdr)
	if err == nil {
		err = ex.in.Header.CheckInitiating()
	}
	if err != nil {
		if la != nil {
			la.release()
		}
		c.violation(err.Error())
		return
	}
	ex.init(c, s)
	ex.in.attach(la)
	c.handler.Exchange(c, ex)
}

func kindName(k wire.Kind) string {
	names := [...]string{"HELLO", "DATA", "ERROR", "SUBSCRIBE", "UNSUBSCRIBE", "CREDIT", "CURSOR", "FLOW", "REPORT"}
	if int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// CursorStream is an inbound CURSOR stream after its head header.
type CursorStream struct{ s recvHalf }

// Read reads raw cursor record bytes; io.EOF marks the FIN.
func (cs *CursorStream) Read(p []byte) (int, error) {
	n, err := cs.s.Read(p)
	return n, readError(err)
}

// Stop ends the report: STOP_SENDING(code), e.g. CANCELED for an unknown report_id.
func (cs *CursorStream) Stop(code wire.AppCode) { cs.s.CancelRead(quic.StreamErrorCode(code)) }
