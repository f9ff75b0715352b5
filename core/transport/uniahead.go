package transport

import (
	"bytes"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// A one-way transfer reads ahead as an exchange's halves do (lookahead.go):
// preamble, header, payload and often the FIN in one read. A uni stream of
// another kind (CURSOR, FLOW, a control frame) is read raw after its header,
// so the bytes that read took past the header are handed to its reader
// first (aheadHalf).

// serveQUICUni serves an accepted QUIC uni stream: read ahead on a
// negotiated connection that is not draining, else the plain way
// (serveUni). Only a one-way transfer read ahead holds its stream's credit
// back, until its reader is done with it (InStream.credit); every other
// stream gives it back as soon as it completes. It reports false once the
// stream was served before negotiation (the HELLO, usually): its goroutine
// need not stay accepting beside the one that took over, so an idle
// connection keeps one accepting goroutine, as it did before its first
// transfer.
func (c *Conn) serveQUICUni(s *quic.ReceiveStream) bool {
	if !c.readsAhead() {
		s.ReleaseStreamCredit()
		c.serveUni(s)
		return false
	}
	p, hdr, la, err := c.readHeadAhead(s, false)
	if err != nil {
		s.ReleaseStreamCredit()
		return true
	}
	if p.Kind == wire.KindData {
		c.dispatchDataAhead(s, hdr, la)
		return true
	}
	s.ReleaseStreamCredit()
	hdr = bytes.Clone(hdr) // the decoders may keep it; la goes back to its pool
	var r recvHalf = s
	if la != nil {
		if la.pending() {
			r = &aheadHalf{recvHalf: s, la: la}
		} else {
			la.release()
		}
	}
	if p.Kind == wire.KindHello {
		c.onHello(hdr) // a second HELLO: the violation
		finishHeaderOnly(r)
		return true
	}
	c.dispatchUni(p.Kind, hdr, r)
	switch p.Kind {
	case wire.KindSubscribe, wire.KindUnsubscribe, wire.KindCredit:
		finishHeaderOnly(r)
	}
	return true
}

// dispatchDataAhead decodes a one-way transfer's header, which la holds
// (or, when la is nil, a slice of its own), and hands the transfer on with
// what was read past the header as its lookahead.
func (c *Conn) dispatchDataAhead(s *quic.ReceiveStream, hdr []byte, la *lookahead) {
	in := &InStream{c: c, s: s, credit: s}
	err := c.decodeInbound(&in.Header, hdr)
	if err == nil {
		err = in.Header.CheckInitiating()
	}
	if err != nil {
		if la != nil {
			la.release()
		}
		s.ReleaseStreamCredit()
		c.violation(err.Error())
		return
	}
	in.attach(la)
	c.handler.Data(c, in)
}

// aheadHalf is a uni stream whose first bytes after the header were read
// ahead: Read hands them out, then the read's end or the stream's next
// bytes.
type aheadHalf struct {
	recvHalf
	la *lookahead
}

func (a *aheadHalf) Read(p []byte) (int, error) {
	if la := a.la; la != nil {
		n, drained, err := la.take(p)
		if drained {
			a.la = nil
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
	return a.recvHalf.Read(p)
}
