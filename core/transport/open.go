package transport

import (
	"context"
	"errors"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// OpenUni opens a one-way transfer carrying h. It waits at the peer's uni
// stream budget (never errors for it), bounded by ctx.
func (c *Conn) OpenUni(ctx context.Context, h *wire.Data) (*OutStream, error) {
	o := new(OutStream)
	if err := c.OpenUniInto(ctx, h, o); err != nil {
		return nil, err
	}
	return o, nil
}

// OpenUniUnwatched is OpenUni for a transfer whose receipt nobody can
// observe (a publisher's copy): no receipt is tracked, so its packets cost
// the receipt tracker nothing, and its Finish returns a nil Receipt. A
// graceful close still waits for the peer to consume it (AwaitPeerConsumed
// counts every stream opened), which implies every byte arrived.
func (c *Conn) OpenUniUnwatched(ctx context.Context, h *wire.Data) (*OutStream, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	s, err := c.openUniStream(ctx)
	if err != nil {
		return nil, err
	}
	o := new(OutStream)
	o.setUp(c, s, false)
	if err := o.writeData(h); err != nil {
		return nil, err
	}
	return o, nil
}

// OpenUniInto is OpenUni setting up the transfer in out, a zero OutStream
// the caller placed inside its own state (one allocation for the transfer
// of both layers).
func (c *Conn) OpenUniInto(ctx context.Context, h *wire.Data, out *OutStream) error {
	if err := c.Err(); err != nil {
		return err
	}
	s, err := c.openUniStream(ctx)
	if err != nil {
		return err
	}
	return c.startDataInto(out, s, h)
}

// startData makes s a one-way transfer by writing its DATA header h.
func (c *Conn) startData(s uniSend, h *wire.Data) (*OutStream, error) {
	o := new(OutStream)
	if err := c.startDataInto(o, s, h); err != nil {
		return nil, err
	}
	return o, nil
}

// startDataInto is startData setting up o, a zero OutStream.
func (c *Conn) startDataInto(o *OutStream, s uniSend, h *wire.Data) error {
	o.init(c, s)
	return o.writeData(h)
}

// OpenBi opens an exchange whose initiating half carries h.
func (c *Conn) OpenBi(ctx context.Context, h *wire.Data) (*OutStream, *ReplyHalf, error) {
	// Both halves in one allocation: they live as long as the exchange.
	halves := &struct {
		out   OutStream
		reply ReplyHalf
	}{}
	if err := c.OpenBiInto(ctx, h, &halves.out, &halves.reply); err != nil {
		return nil, nil, err
	}
	return &halves.out, &halves.reply, nil
}

// OpenBiInto is OpenBi setting up the halves in out and reply, both zero,
// which the caller placed inside its own exchange state: one allocation
// then holds the exchange of both layers.
func (c *Conn) OpenBiInto(ctx context.Context, h *wire.Data, out *OutStream, reply *ReplyHalf) error {
	if err := c.Err(); err != nil {
		return err
	}
	s, err := c.openBidiStream(ctx)
	if err != nil {
		return err
	}
	reply.c, reply.s = c, s
	out.init(c, s)
	if err := out.writeData(h); err != nil {
		s.CancelRead(quic.StreamErrorCode(wire.CodeCanceled))
		return err
	}
	return nil
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
	s, err := c.openQUICUni(ctx)
	if err != nil {
		return nil, err // a nil interface, not one holding a nil stream
	}
	return s, nil
}

// openQUICUni opens a QUIC uni stream, waiting for the peer's stream credit
// (bounded by ctx); openQUICUniNow is its form that never waits.
func (c *Conn) openQUICUni(ctx context.Context) (*quic.SendStream, error) {
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

// isStreamLimit reports whether a non-waiting open failed only for want of
// the peer's stream credit. quic-go returns *StreamLimitReachedError; the
// value form is matched too, so a change of form cannot turn "no credit
// now" into a connection loss.
func isStreamLimit(err error) bool {
	var ptr *quic.StreamLimitReachedError
	var val quic.StreamLimitReachedError
	return errors.As(err, &ptr) || errors.As(err, &val)
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
