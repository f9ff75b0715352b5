package transport

import (
	"io"
	"sync"

	"github.com/weida-go/weida/core/wire"
)

// A small message's preamble, header, payload and FIN usually arrive in one
// QUIC packet. Reading them in one read, instead of one each for the
// preamble, the header and the payload, saves two passes through quic-go's
// stream machinery per stream half on the round trip's path. What that read
// takes past the header is the stream's lookahead, which its InStream hands
// out before it reads on.
//
// The read may take the FIN too. A Refuse after that sends no STOP_SENDING,
// since quic-go has nothing left to stop; the whole payload has then
// reached this side's transport, so the sender's receipt, which the peer's
// acknowledgement resolves, reads delivered, as it would have had the
// refusal come an instant later. Only QUIC streams of a negotiated
// connection that is not draining read ahead: a parked or refused stream
// still holds no more than its preamble. An exchange's two halves and a
// one-way transfer read ahead for an InStream; a uni stream of another
// kind hands what was read ahead to its raw reader (uniahead.go). A
// transfer waiting in an endpoint queue holds its lookahead (at most
// lookaheadLen bytes) until it is read.

// lookaheadLen is what the one read asks for: a small message whole. The
// buffer and its bookkeeping fill the 2 KiB size class exactly.
const lookaheadLen = 2048 - 32

// inlineWhole is the room an InStream keeps for a whole small payload
// (attach), sized so the InStream stays within its allocation size class.
const inlineWhole = 88

// lookahead holds a stream's first read. buf[off:end] are payload bytes not
// handed out yet, and err is what the read returned after them (io.EOF for
// the FIN).
type lookahead struct {
	buf      [lookaheadLen]byte
	off, end int
	err      error
}

var lookaheads = sync.Pool{New: func() any { return new(lookahead) }}

// release gives la back once nothing refers to its bytes.
func (la *lookahead) release() {
	la.off, la.end, la.err = 0, 0, nil
	lookaheads.Put(la)
}

// take copies out the bytes not handed out yet, as many as p holds. Once
// none is left it releases la and reports drained, with what the read
// returned after them (io.EOF for the FIN).
func (la *lookahead) take(p []byte) (n int, drained bool, err error) {
	n = copy(p, la.buf[la.off:la.end])
	la.off += n
	if la.off < la.end {
		return n, false, nil
	}
	err = la.err
	la.release()
	return n, true, err
}

// pending reports whether la holds anything to hand out: bytes or an end.
func (la *lookahead) pending() bool { return la.off < la.end || la.err != nil }

// errNotData is readHeadAhead's answer to a frame other than DATA where only
// DATA may come; the caller words the violation.
var errNotData = &wire.ViolationError{Reason: "not a DATA frame"}

// readHeadAhead reads a stream half's preamble and header, and whatever
// payload arrived with them, from r. The header is returned in la's buffer
// (a header longer than the buffer in a slice of its own, and then la is
// nil): decode it before releasing la or attaching it to an InStream. With
// dataOnly, any other kind is errNotData as soon as the preamble shows it,
// so a stream judged by its kind is judged before its header. A malformed
// or truncated head is the violation readPreamble and readHeaderBody
// report; a reset or a lost connection is returned as it is.
func (c *Conn) readHeadAhead(r io.Reader, dataOnly bool) (p wire.Preamble, hdr []byte, la *lookahead, err error) {
	la = lookaheads.Get().(*lookahead)
	n := 0
	var readErr error
	for {
		if readErr == nil {
			var m int
			m, readErr = r.Read(la.buf[n:])
			n += m
		}
		p, pn, perr := wire.ParsePreamble(la.buf[:n], c.cfg.Limits.MaxHeaderBytes)
		switch {
		case perr == wire.ErrNeedMore:
			if readErr != nil {
				la.release()
				return wire.Preamble{}, nil, nil, c.streamEnded(readErr, "stream ended inside the preamble")
			}
			continue
		case perr != nil:
			la.release()
			c.violation(perr.Error())
			return wire.Preamble{}, nil, nil, perr
		case dataOnly && p.Kind != wire.KindData:
			la.release()
			return p, nil, nil, errNotData
		}
		end := pn + int(p.HeaderLen) // header_len is capped by max_header_bytes
		switch {
		case end <= n:
			la.off, la.end, la.err = end, n, readErr
			return p, la.buf[pn:end], la, nil
		case end > len(la.buf):
			return c.readLongHead(r, p, la.buf[pn:n], readErr, la)
		case readErr != nil:
			la.release()
			return wire.Preamble{}, nil, nil, c.streamEnded(readErr, "stream ended inside the header")
		}
	}
}

// readLongHead finishes a header longer than the lookahead buffer: got is
// its start, read with readErr. Every byte read belongs to the header, so
// la is released and nothing is read ahead.
func (c *Conn) readLongHead(r io.Reader, p wire.Preamble, got []byte, readErr error, la *lookahead) (wire.Preamble, []byte, *lookahead, error) {
	hdr := make([]byte, p.HeaderLen)
	copy(hdr, got)
	have := len(got)
	la.release()
	if readErr != nil {
		return wire.Preamble{}, nil, nil, c.streamEnded(readErr, "stream ended inside the header")
	}
	if _, err := c.readHeaderInto(r, p, hdr[have:]); err != nil {
		return wire.Preamble{}, nil, nil, err
	}
	return p, hdr, nil, nil
}

// attach makes what la holds past the header the lookahead of i once its
// header was decoded, or releases la when it holds nothing. A whole payload
// small enough for i's inline room is copied there and la released at
// once: a transfer waiting in a queue then pins no pooled buffer, and the
// buffer goes back to the pool hot, on the goroutine that read it.
func (i *InStream) attach(la *lookahead) {
	if la == nil {
		return
	}
	if !la.pending() {
		la.release()
		return
	}
	rest := la.buf[la.off:la.end]
	if la.err == io.EOF && len(rest) <= len(i.inline) {
		i.ahead, i.aheadErr = i.inline[:copy(i.inline[:], rest)], io.EOF
		la.release()
		return
	}
	i.ahead, i.aheadErr, i.aheadBuf = rest, la.err, la
}

// dropAhead forgets the lookahead and gives back the buffer it was in.
func (i *InStream) dropAhead() {
	if la := i.aheadBuf; la != nil {
		i.aheadBuf = nil
		la.release()
	}
	i.ahead, i.aheadErr = nil, nil
}

// readAhead hands out lookahead bytes, then the read's end, and drops the
// lookahead once it is drained.
func (i *InStream) readAhead(p []byte) (int, error) {
	n := copy(p, i.ahead)
	if n < len(i.ahead) {
		i.ahead = i.ahead[n:]
		return n, nil
	}
	err := i.aheadErr
	i.dropAhead()
	if err == io.EOF {
		i.eof.Store(true)
	}
	if err != nil {
		i.ended()
	}
	return n, readError(err)
}
