package transport

import (
	"errors"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// OpenUniNow is OpenUni for a sender that must never wait (a radio's
// segment copies, opened in the order their segments were): without the
// peer's stream credit at hand, and on local transports, it fails with
// LimitExceeded and the caller opens with OpenUni elsewhere.
func (c *Conn) OpenUniNow(h *wire.Data) (*OutStream, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if c.qc == nil {
		return nil, errs.New(errs.KindLimitExceeded, "a local transport opens streams by waiting")
	}
	s, err := c.qc.OpenUniStream()
	if err != nil {
		var limit quic.StreamLimitReachedError
		if errors.As(err, &limit) {
			return nil, errs.New(errs.KindLimitExceeded, "no stream credit from the peer right now")
		}
		return nil, lossError(err)
	}
	c.receipts.credit.countOpened(streamUni)
	o := newOutStream(c, s)
	if err := o.writeFrame(wire.KindData, h); err != nil {
		return nil, err
	}
	return o, nil
}
