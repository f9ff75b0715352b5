package rawpeer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// Conn is one raw QUIC connection to or from a weida peer.
type Conn struct {
	QC *quic.Conn
}

// Uni writes b on a new uni stream and finishes it (FIN).
func (c *Conn) Uni(b []byte) error {
	s, err := c.UniOpen(b)
	if err != nil {
		return err
	}
	return s.Close()
}

// UniOpen writes b on a new uni stream and leaves it open, so a
// STOP_SENDING from the victim stays observable (StopCode); a finished
// stream's context ends with the FIN instead.
func (c *Conn) UniOpen(b []byte) (*quic.SendStream, error) {
	s, err := c.QC.OpenUniStream()
	if err != nil {
		return nil, err
	}
	if _, err := s.Write(b); err != nil {
		return nil, err
	}
	return s, nil
}

// Bidi writes b on a new bidi stream, finishing the initiating half when fin.
func (c *Conn) Bidi(b []byte, fin bool) (*quic.Stream, error) {
	s, err := c.QC.OpenStream()
	if err != nil {
		return nil, err
	}
	if _, err := s.Write(b); err != nil {
		return nil, err
	}
	if fin {
		err = s.Close()
	}
	return s, err
}

// Close closes the connection with NO_ERROR.
func (c *Conn) Close() { _ = c.QC.CloseWithError(quic.ApplicationErrorCode(wire.CodeNoError), "") }

// Alive reports whether the connection is still open.
func (c *Conn) Alive() bool { return c.QC.Context().Err() == nil }

// ClosedWith waits until the victim closes the connection and returns its
// application error code. It fails if ctx ends first or the connection
// ended any other way (idle timeout, a local close, a TLS alert).
func (c *Conn) ClosedWith(ctx context.Context) (wire.AppCode, error) {
	select {
	case <-c.QC.Context().Done():
	case <-ctx.Done():
		return 0, fmt.Errorf("the victim did not close the connection: %w", ctx.Err())
	}
	cause := context.Cause(c.QC.Context())
	var appErr *quic.ApplicationError
	if !errors.As(cause, &appErr) || !appErr.Remote {
		return 0, fmt.Errorf("the connection ended without a close by the victim: %v", cause)
	}
	return wire.AppCode(appErr.ErrorCode), nil
}

// sendHalf is what both stream types offer about their sending side.
type sendHalf interface{ Context() context.Context }

// StopCode waits until the victim stops reading s (STOP_SENDING) and
// returns its code. s must not have been finished (see UniOpen).
func StopCode(ctx context.Context, s sendHalf) (wire.AppCode, error) {
	select {
	case <-s.Context().Done():
	case <-ctx.Done():
		return 0, fmt.Errorf("the victim never stopped the stream: %w", ctx.Err())
	}
	cause := context.Cause(s.Context())
	var se *quic.StreamError
	if !errors.As(cause, &se) || !se.Remote {
		return 0, fmt.Errorf("the stream's sending side ended without STOP_SENDING: %v", cause)
	}
	return wire.AppCode(se.ErrorCode), nil
}

// ReadFrame reads one preamble and header from r, the way the victim
// wrote it, under the default header limit.
func ReadFrame(r io.Reader) (wire.Kind, []byte, error) {
	return wire.ReadHeader(r, wire.DefaultMaxHeaderBytes, nil)
}

// AcceptHello takes the victim's HELLO stream and decodes it.
func (c *Conn) AcceptHello(ctx context.Context) (wire.Hello, error) {
	s, err := c.QC.AcceptUniStream(ctx)
	if err != nil {
		return wire.Hello{}, err
	}
	kind, hdr, err := ReadFrame(s)
	if err != nil {
		return wire.Hello{}, err
	}
	if kind != wire.KindHello {
		return wire.Hello{}, fmt.Errorf("the victim's first uni stream carried %s, not HELLO", kind)
	}
	return wire.DecodeHello(hdr)
}

// Request is an exchange the victim opened: its decoded DATA header, its
// stream (the request payload follows the header; the reply half is
// written with Write), and the payload read to FIN.
type Request struct {
	Stream  *quic.Stream
	Header  wire.Data
	Payload []byte
}

// AcceptRequest takes the next exchange the victim opens and reads its
// request to FIN, at most maxPayload bytes.
func (c *Conn) AcceptRequest(ctx context.Context, maxPayload int64) (*Request, error) {
	s, err := c.QC.AcceptStream(ctx)
	if err != nil {
		return nil, err
	}
	kind, hdr, err := ReadFrame(s)
	if err != nil {
		return nil, err
	}
	if kind != wire.KindData {
		return nil, fmt.Errorf("the victim opened an exchange with %s, not DATA", kind)
	}
	h, err := wire.DecodeData(hdr)
	if err != nil {
		return nil, err
	}
	payload, err := io.ReadAll(io.LimitReader(s, maxPayload))
	if err != nil {
		return nil, err
	}
	return &Request{Stream: s, Header: h, Payload: payload}, nil
}

// Answer writes b on the reply half and finishes it.
func (r *Request) Answer(b []byte) error {
	if _, err := r.Stream.Write(b); err != nil {
		return err
	}
	return r.Stream.Close()
}
