package transport

import (
	"context"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// OpenUniNow is OpenUni for a sender that must never wait (a radio's
// segment copies, opened in the order their segments were): without the
// peer's stream credit at hand (locally: at max_local_streams) it fails
// with LimitExceeded and the caller opens with OpenUni elsewhere; toward a
// unix peer with no reverse connection parked it fails NoParkedConnection.
func (c *Conn) OpenUniNow(h *wire.Data) (*OutStream, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if c.local != nil {
		s, err := c.openLocalNow()
		if err != nil {
			return nil, err
		}
		return c.startData(s, h)
	}
	s, ok, err := c.openQUICUniNow()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.New(errs.KindLimitExceeded, "no stream credit from the peer right now")
	}
	return c.startData(s, h)
}

// openQUICUniNow opens a QUIC uni stream without waiting: false, with no
// error, when the peer's stream credit is spent right now.
func (c *Conn) openQUICUniNow() (*quic.SendStream, bool, error) {
	s, err := c.qc.OpenUniStream()
	if err != nil {
		if isStreamLimit(err) {
			return nil, false, nil
		}
		return nil, false, c.quicOpenError(context.Background(), err)
	}
	c.receipts.credit.countOpened(streamUni)
	return s, true, nil
}

// SetUrgency schedules the stream by RFC 9218 urgency (0 most urgent, 7
// least; other streams sit at 3), non-incremental, so that among streams
// of one urgency the older is sent first. A no-op on local transports.
func (o *OutStream) SetUrgency(urgency int8) {
	if p, ok := o.s.(interface{ SetPriority(int8, bool) }); ok {
		p.SetPriority(urgency, false)
	}
}

// Stopped is closed once the stream can take no more writes: the peer
// stopped reading it (STOP_SENDING), it was reset or finished here, or the
// connection ended. A writer idle between chunks learns a refusal from it
// without writing. Nil (never closed) on local transports.
func (o *OutStream) Stopped() <-chan struct{} {
	if s, ok := o.s.(interface{ Context() context.Context }); ok {
		return s.Context().Done()
	}
	return nil
}
