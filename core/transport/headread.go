package transport

import (
	"io"
	"sync"

	"github.com/weida-go/weida/core/wire"
)

// Reading a stream half's preamble and header on the plain path: the
// preamble alone first (a parked stream holds no more), then the header,
// into borrowed buffers where they fit. The read-ahead path is lookahead.go.

// readPreamble reads only the preamble (PROTOCOL.md §5.1), so a parked
// stream holds at most these bytes. Violations close the connection.
func (c *Conn) readPreamble(r io.Reader) (wire.Preamble, error) {
	bp := headBuffers.Get().(*headBuffer)
	defer headBuffers.Put(bp)
	b := bp[:wire.MaxPreambleLen]
	if _, err := io.ReadFull(r, b[:3]); err != nil {
		return wire.Preamble{}, c.streamEnded(err, "stream ended inside the preamble")
	}
	n := 2 + 1<<(b[2]>>6)
	if n > 3 {
		if _, err := io.ReadFull(r, b[3:n]); err != nil {
			return wire.Preamble{}, c.streamEnded(err, "stream ended inside the preamble")
		}
	}
	p, _, err := wire.ParsePreamble(b[:n], c.cfg.Limits.MaxHeaderBytes)
	if err != nil {
		c.violation(err.Error())
		return wire.Preamble{}, err
	}
	return p, nil
}

// headBuffers hold a preamble, or a DATA header while it is decoded: a
// buffer handed to io.ReadFull escapes, so borrowing one saves a heap
// allocation per read. headBufferLen covers the usual DATA header (path,
// content length, a trace context); a larger one is read into its own
// slice.
var headBuffers = sync.Pool{New: func() any { return new(headBuffer) }}

const headBufferLen = 256

type headBuffer [headBufferLen]byte

// readHeaderBody reads header_len bytes; the length was capped by
// ParsePreamble before this allocation.
func (c *Conn) readHeaderBody(r io.Reader, p wire.Preamble) ([]byte, error) {
	return c.readHeaderInto(r, p, make([]byte, p.HeaderLen))
}

// readHeaderInto reads the header p announces into hdr, its exact size.
func (c *Conn) readHeaderInto(r io.Reader, p wire.Preamble, hdr []byte) ([]byte, error) {
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, c.streamEnded(err, "stream ended inside the header")
	}
	return hdr, nil
}

// readDataHeader reads a DATA header (its preamble p already read) and
// decodes it. The bytes go through a borrowed buffer when they fit:
// DecodeData copies out what it keeps, so the buffer goes back at once.
// A read failure is what readHeaderBody returns; a decode failure is the
// decoder's violation, for the caller to report.
func (c *Conn) readDataHeader(r io.Reader, p wire.Preamble) (d wire.Data, readErr, decodeErr error) {
	if p.HeaderLen > headBufferLen {
		hdr, err := c.readHeaderBody(r, p)
		if err != nil {
			return wire.Data{}, err, nil
		}
		err = c.decodeInbound(&d, hdr)
		return d, nil, err
	}
	bp := headBuffers.Get().(*headBuffer)
	defer headBuffers.Put(bp)
	hdr, err := c.readHeaderInto(r, p, bp[:p.HeaderLen])
	if err != nil {
		return wire.Data{}, err, nil
	}
	err = c.decodeInbound(&d, hdr) // not in the return: d must be read after it
	return d, nil, err
}

// decodeInbound decodes an inbound stream's DATA header into d, the zero
// Data, against the path of the previous inbound stream: a connection's
// streams mostly address one path, and then it is not copied again.
func (c *Conn) decodeInbound(d *wire.Data, hdr []byte) error {
	known := ""
	if p := c.lastEndpoint.Load(); p != nil {
		known = *p
	}
	if err := d.DecodeKnown(hdr, known); err != nil {
		return err
	}
	if d.Endpoint.Ok && d.Endpoint.V != known {
		ep := d.Endpoint.V // allocated only when the path changes
		c.lastEndpoint.Store(&ep)
	}
	return nil
}

// streamEnded turns a FIN inside a preamble or header into a violation (spec
// README decision); a reset or a lost connection just ends the stream.
func (c *Conn) streamEnded(err error, reason string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		c.violation(reason)
		return &wire.ViolationError{Reason: reason}
	}
	return err
}
