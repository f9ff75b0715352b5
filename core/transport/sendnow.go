package transport

import (
	"errors"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// SendNow sends a whole one-way transfer — h, payload, FIN — only if none
// of it has to wait: a stream from the peer's credit at hand and flow-control
// room for all of it. It reports false when any of it would wait, and the
// caller then sends the waiting way (OpenUni); the peer reads nothing of an
// attempt that reported false (a stream already opened for it is reset
// before its first byte). An event loop calls it to finish a small send on
// its own thread instead of handing it to a goroutine.
//
// A payload above the largest first write that travels with its header,
// and every local transport, report false at once.
func (c *Conn) SendNow(h *wire.Data, payload []byte) (*Receipt, bool, error) {
	if c.local != nil || len(payload) > coalesceMax {
		return nil, false, nil
	}
	if err := c.Err(); err != nil {
		return nil, false, err
	}
	s, ok, err := c.openQUICUniNow()
	if !ok || err != nil {
		return nil, false, err
	}
	o := newOutStream(c, s)
	if err := o.writeData(h); err != nil {
		return nil, false, err // the header the peer would refuse: Cancel reset the stream
	}
	bp := coalesceBuffers.Get().(*[]byte)
	buf := append(append((*bp)[:0], o.pending...), payload...)
	err = s.TryWriteAll(buf)
	*bp = buf
	coalesceBuffers.Put(bp)
	if errors.Is(err, quic.ErrWouldBlock) {
		o.Cancel()
		return nil, false, nil
	}
	if err != nil {
		err = writeError(err)
		o.rc.tracker.settle(&o.rc, err)
		return nil, false, err
	}
	o.pending = nil
	o.written = int64(len(buf))
	rc, err := o.Finish()
	return rc, err == nil, err
}
