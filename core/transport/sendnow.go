package transport

import (
	"errors"
	"sync"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/wire"
)

// SendNow sends a whole one-way transfer — h, payload, FIN — only if none
// of it has to wait: a stream from the peer's credit at hand and flow-control
// room for all of it. It reports false when any of it would wait, and the
// caller then sends the waiting way (OpenUni); the peer reads nothing of an
// attempt that reported false (a stream already opened for it is reset
// before its first byte). Once the bytes are queued the attempt reports
// true, even when the peer stopped the stream as they went out: the caller
// must not send the transfer again, since the peer may have read and
// refused it. That refusal surfaces from the receipt (SendNowUnwatched,
// which has none, returns it with true). An event loop calls it to finish a
// small send on its own thread instead of handing it to a goroutine.
//
// A payload above the largest first write that travels with its header,
// and every local transport, report false at once.
func (c *Conn) SendNow(h *wire.Data, payload []byte) (*Receipt, bool, error) {
	return c.sendNow(h, payload, true)
}

// SendNowUnwatched is SendNow for a transfer whose receipt nobody can
// observe (a publisher's copy): no receipt is tracked for it (see
// OpenUniUnwatched).
func (c *Conn) SendNowUnwatched(h *wire.Data, payload []byte) (bool, error) {
	_, sent, err := c.sendNow(h, payload, false)
	return sent, err
}

func (c *Conn) sendNow(h *wire.Data, payload []byte, watched bool) (*Receipt, bool, error) {
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
	var o *OutStream
	if watched {
		o = new(OutStream)
	} else {
		o = unwatchedSends.Get().(*OutStream)
		defer releaseUnwatched(o)
	}
	o.setUp(c, s, watched)
	if err := o.writeData(h); err != nil {
		return nil, false, err // the header the peer would refuse: Cancel reset the stream
	}
	sent, err := o.TryWrite(payload)
	if err != nil {
		return nil, false, err
	}
	if !sent {
		o.Cancel()
		return nil, false, nil
	}
	if f := faults.SendNowQueued.Load(); f != nil {
		(*f)(payload, o.Stopped()) // a test's peer refuses the stream here
	}
	rc, err := o.Finish()
	return rc, true, err
}

// unwatchedSends hold the OutStreams of unwatched SendNow calls: once the
// call returns nothing refers to one (no receipt is tracked or handed out,
// and quic-go copied the bytes), so a publisher's copies reuse them.
var unwatchedSends = sync.Pool{New: func() any { return new(OutStream) }}

func releaseUnwatched(o *OutStream) {
	*o = OutStream{}
	unwatchedSends.Put(o)
}

// TryWrite writes p, the first payload bytes, behind the header only if all
// of it can be queued now: no wait for flow-control room. It reports false,
// having written nothing, when it would wait, and also for a write after
// the first, one above coalesceMax bytes and a local transport; the caller
// then writes the waiting way. A sender that must be able to abandon a
// blocked write (a context's end) arms that only when TryWrite says false.
func (o *OutStream) TryWrite(p []byte) (bool, error) {
	s, ok := o.s.(interface{ TryWriteAll([]byte) error })
	if !ok || o.c.local != nil || o.pending == nil || len(p) > coalesceMax {
		return false, nil
	}
	bp := coalesceBuffers.Get().(*[]byte)
	buf := append(append((*bp)[:0], o.pending...), p...)
	err := s.TryWriteAll(buf)
	*bp = buf
	coalesceBuffers.Put(bp)
	if errors.Is(err, quic.ErrWouldBlock) {
		return false, nil
	}
	if err != nil {
		err = writeError(err)
		o.rc.tracker.settle(&o.rc, err)
		return false, err
	}
	o.pending = nil
	o.written = int64(len(buf))
	return true, nil
}
