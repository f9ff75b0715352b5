package transport

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// inprocStream is one in-process stream: a pipe each way and its two ends,
// in one allocation. It is live until both directions completed; then the
// opener's slot (max_local_streams) is given back.
type inprocStream struct {
	fwd, back        pipe // opener → acceptor, acceptor → opener
	opener, acceptor inprocEnd
	left             atomic.Int32 // directions not yet complete
	done             func(*inprocStream)
}

// newInprocStream makes a stream whose ends carry the ids given; done runs
// once when both directions completed (nil for the control stream).
func newInprocStream(window int, openerID, acceptorID quic.StreamID, done func(*inprocStream)) *inprocStream {
	st := &inprocStream{done: done}
	st.left.Store(2)
	st.fwd.init(window, st.directionDone)
	st.back.init(window, st.directionDone)
	st.opener = inprocEnd{id: openerID, out: &st.fwd, in: &st.back}
	st.acceptor = inprocEnd{id: acceptorID, out: &st.back, in: &st.fwd}
	return st
}

func (st *inprocStream) directionDone() {
	if st.left.Add(-1) == 0 && st.done != nil {
		st.done(st)
	}
}

// fail ends both directions with the connection's loss, seen from the
// opener (o) and the acceptor (a).
func (st *inprocStream) fail(o, a error) {
	st.fwd.fail(o, a)
	st.back.fail(a, o)
}

// inprocEnd is one end of an in-process stream; it implements localStream
// with quic-go's method names so the stream types need no adapter.
type inprocEnd struct {
	id       quic.StreamID
	out      *pipe
	in       *pipe
	exchange bool // the opener will read a reply (set on the accepting end)
}

func (e *inprocEnd) Write(b []byte) (int, error) { return e.out.write(b, true) }

// TryWriteAll takes all of b without waiting, or nothing (quic.ErrWouldBlock).
func (e *inprocEnd) TryWriteAll(b []byte) error {
	_, err := e.out.write(b, false)
	return err
}

// Close is the FIN of this end's direction.
func (e *inprocEnd) Close() error { return e.out.finish() }

// CancelWrite resets this end's direction with code.
func (e *inprocEnd) CancelWrite(code quic.StreamErrorCode) { e.out.cancelWrite(uint64(code)) }

func (e *inprocEnd) Read(b []byte) (int, error) { return e.in.read(b) }

// CancelRead stops the peer's direction with code.
func (e *inprocEnd) CancelRead(code quic.StreamErrorCode) { e.in.cancelRead(uint64(code)) }

// StreamID names the end for its connection's receipts.
func (e *inprocEnd) StreamID() quic.StreamID { return e.id }

// Context ends when this end can write no more.
func (e *inprocEnd) Context() context.Context { return endedContext{e.out.sendEnded()} }

// oneWay resets the direction back to the opener: a requester waiting on
// it learns that nothing answers exchanges at the path.
func (e *inprocEnd) oneWay() { e.out.cancelWrite(uint64(wire.CodeUnsupported)) }

// intent is known in process: the opener said whether it reads a reply.
func (e *inprocEnd) intent() (bool, bool) { return e.exchange, true }

// endedContext is a context.Context that ends when a channel closes; it
// carries no deadline and no values.
type endedContext struct{ ch <-chan struct{} }

func (endedContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c endedContext) Done() <-chan struct{}     { return c.ch }
func (endedContext) Value(any) any               { return nil }

func (c endedContext) Err() error {
	select {
	case <-c.ch:
		return context.Canceled
	default:
		return nil
	}
}
