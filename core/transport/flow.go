package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// FlowHandler is implemented by a Handler that takes datagram flows. A
// Handler without it has every inbound flow refused UNSUPPORTED.
type FlowHandler interface {
	// Flow is an inbound flow whose FLOW header was read and whose id is
	// registered; its datagrams are already being queued. The handler
	// must keep it (and Release it when done) or Refuse it.
	Flow(c *Conn, f *InFlow)
}

// OutFlow is an outgoing datagram flow (PROTOCOL.md §8.7): a FLOW stream
// that lives as long as the flow, and datagrams prefixed with its id.
type OutFlow struct {
	c       *Conn
	s       flowStream
	id      uint64
	sent    atomic.Uint64 // datagrams Send accepted
	dropped atomic.Uint64 // of those, discarded before the transport took them

	// A local flow's stream carries its records itself (local_flow.go).
	local      bool
	closedHere atomic.Bool             // Close or Cancel ran
	localErr   atomic.Pointer[flowEnd] // the write that failed first
}

// flowStream is the sending half of a FLOW stream: a QUIC uni stream, or a
// local stream that also carries the flow's records.
type flowStream interface {
	sendHalf
	Context() context.Context
}

// OpenFlow registers a flow carrying h (its Flow id is assigned here) and
// returns without waiting for the peer; only the peer's stream budget may
// make it wait, bounded by ctx. Without agreed datagrams it fails with
// DatagramsUnavailable: a flow never falls back to a stream.
func (c *Conn) OpenFlow(ctx context.Context, h wire.Flow) (*OutFlow, error) {
	return c.openFlow(ctx, h, true)
}

// OpenFlowNow is OpenFlow for a sender that must never wait (a radio):
// without stream credit or window for the header at once it fails with
// LimitExceeded.
func (c *Conn) OpenFlowNow(h wire.Flow) (*OutFlow, error) {
	return c.openFlow(context.Background(), h, false)
}

// openFlow opens the FLOW stream, waiting for stream credit and window
// under ctx when wait is set, not at all otherwise.
func (c *Conn) openFlow(ctx context.Context, h wire.Flow, wait bool) (*OutFlow, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if !c.DatagramsAgreed() {
		return nil, errs.New(errs.KindDatagramsUnavailable, "datagrams were not agreed on this connection: both runtimes must enable them")
	}
	h.Flow = c.datagrams().allocID()
	frame := wire.AppendFrame(nil, wire.KindFlow, &h)
	if n, _, _ := wire.ParseVarint(frame[2:]); n > c.agreed.SendMaxHeaderBytes {
		return nil, errs.New(errs.KindLimitExceeded, "a FLOW header of %d bytes exceeds the peer's max_header_bytes %d", n, c.agreed.SendMaxHeaderBytes)
	}
	if c.local != nil {
		s, err := c.openLocalFlow(ctx, frame, wait)
		if err != nil {
			return nil, err
		}
		return &OutFlow{c: c, s: s, id: h.Flow, local: true}, nil
	}
	var s *quic.SendStream
	var err error
	if wait {
		if s, err = c.openQUICUni(ctx); err != nil {
			return nil, err
		}
	} else {
		var opened bool
		if s, opened, err = c.openQUICUniNow(); err != nil {
			return nil, err
		} else if !opened {
			return nil, errs.New(errs.KindLimitExceeded, "no stream credit for a FLOW stream now")
		}
	}
	if wait {
		// A header larger than a packet waits for flow-control room, which a
		// peer that does not read never gives: ctx bounds that wait too.
		stop := context.AfterFunc(ctx, func() { s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled)) })
		_, err = s.Write(frame)
		if !stop() {
			s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled)) // the cancel may have come after the write
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "opening the flow was abandoned")
		}
	} else if err = s.TryWriteAll(frame); errors.Is(err, quic.ErrWouldBlock) {
		s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled))
		return nil, errs.New(errs.KindLimitExceeded, "no flow-control window for a FLOW header now")
	}
	if err != nil {
		return nil, writeError(err)
	}
	return &OutFlow{c: c, s: s, id: h.Flow}, nil
}

// Send queues one datagram; it never waits (see datagrams.send). After the
// flow ended it returns why: the peer's refusal, Canceled once closed here,
// or the connection's loss.
func (f *OutFlow) Send(payload []byte) error {
	if err := f.Err(); err != nil {
		return err
	}
	return f.c.datagrams().send(f, payload)
}

// Done is closed when the flow ended: refused or released by the peer,
// closed here, or its connection gone.
func (f *OutFlow) Done() <-chan struct{} { return f.s.Context().Done() }

// Err is nil while the flow lives, else why it ended.
func (f *OutFlow) Err() error {
	if f.local && f.closedHere.Load() { // its FIN may still be queued
		err, _ := f.localEnding()
		return err
	}
	select {
	case <-f.s.Context().Done():
	default:
		return nil
	}
	err, _ := f.ending()
	return err
}

// ConnectionEnded reports whether the flow ended because its connection
// did (as opposed to the flow alone ending). QUIC ends a connection's
// streams before its context, so the stream's own cause decides.
func (f *OutFlow) ConnectionEnded() bool {
	select {
	case <-f.s.Context().Done():
	default:
		return false
	}
	_, lost := f.ending()
	return lost
}

// ending classifies the cause of an ended FLOW stream: the peer's
// STOP_SENDING, a local Close or Cancel, or the connection's end.
func (f *OutFlow) ending() (err error, connectionLost bool) {
	if f.local {
		return f.localEnding()
	}
	cause := context.Cause(f.s.Context())
	var se *quic.StreamError
	switch {
	case errors.As(cause, &se) && se.Remote:
		return stopSendingError(uint64(se.ErrorCode)), false
	case errors.As(cause, &se), errors.Is(cause, quic.ErrStreamClosed):
		return errs.New(errs.KindCanceled, "the flow was closed"), false
	}
	if err := f.c.Err(); err != nil {
		return err, true
	}
	return lossError(cause), true
}

// Close ends the flow in order (FIN on its FLOW stream; on a local
// transport after the records Send already accepted).
func (f *OutFlow) Close() {
	if f.local {
		f.closeLocal()
		return
	}
	f.closedHere.Store(true)
	_ = f.s.Close()
}

// Cancel abandons the flow (RESET_STREAM(CANCELED)).
func (f *OutFlow) Cancel() {
	f.closedHere.Store(true)
	f.s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled))
}

// Conn is the connection carrying the flow.
func (f *OutFlow) Conn() *Conn { return f.c }

// MaxPayload is the largest payload Send accepts now.
// A local flow's records carry no flow id: LocalMaxDatagram.
func (f *OutFlow) MaxPayload() int {
	if f.local {
		return LocalMaxDatagram
	}
	return max(f.c.MaxDatagramPayload()-wire.VarintLen(f.id), 0)
}

// Sent counts the datagrams Send accepted.
func (f *OutFlow) Sent() uint64 { return f.sent.Load() }

// Dropped counts the accepted datagrams discarded before the transport took
// them (the send queue was full, the connection's datagram size shrank, or
// a local flow ended with records still queued).
func (f *OutFlow) Dropped() uint64 { return f.dropped.Load() }

// InFlow is an inbound datagram flow: the FLOW header and a drop-oldest
// ring of its unread datagrams (flow_queue_bytes). A slow reader loses the
// oldest datagrams and stalls nobody.
type InFlow struct {
	c      *Conn
	d      *datagrams
	s      recvHalf
	id     uint64
	Header wire.Flow
	ready  chan struct{} // capacity 1: a datagram was queued
	ended  chan struct{} // closed when the FLOW stream ended
	endErr error         // io.EOF for the sender's FIN; set before ended closes

	// guarded by d.mu
	queue    [][]byte
	queued   int // bytes in queue, entry cost included
	received uint64
	dropped  uint64

	stopOnce sync.Once
}

// Recv returns the next datagram, waiting for one. Once the flow ended and
// its queue is empty it returns io.EOF for an orderly close, or the reason
// (Canceled for a reset or a local release, ConnectionLost…).
func (f *InFlow) Recv(ctx context.Context) ([]byte, error) {
	for {
		if b, ok := f.TryRecv(); ok {
			return b, nil
		}
		select {
		case <-f.ready:
		case <-f.ended:
			if b, ok := f.TryRecv(); ok {
				return b, nil
			}
			return nil, f.endErr
		case <-ctx.Done():
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "flow receive abandoned")
		}
	}
}

// TryRecv returns the next queued datagram without waiting.
func (f *InFlow) TryRecv() ([]byte, bool) {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if len(f.queue) == 0 {
		return nil, false
	}
	return f.d.popLocked(f), true
}

// Refuse ends the flow with STOP_SENDING(code): REJECTED, UNKNOWN_ENDPOINT,
// UNSUPPORTED, or CANCELED for a release. Queued datagrams are discarded.
func (f *InFlow) Refuse(code wire.AppCode) {
	f.stopOnce.Do(func() { f.s.CancelRead(quic.StreamErrorCode(code)) })
	f.d.mu.Lock()
	f.d.discardLocked(f)
	f.d.mu.Unlock()
}

// Release lets the flow go: STOP_SENDING(CANCELED) unless it already ended.
func (f *InFlow) Release() {
	select {
	case <-f.ended:
		f.d.mu.Lock()
		f.d.discardLocked(f)
		f.d.mu.Unlock()
	default:
		f.Refuse(wire.CodeCanceled)
	}
}

// Ended is closed when the flow's FLOW stream ended.
func (f *InFlow) Ended() <-chan struct{} { return f.ended }

// Received and Dropped count datagrams queued for the reader and discarded
// from a full ring.
func (f *InFlow) Received() uint64 {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	return f.received
}

// Dropped counts datagrams discarded from the full ring.
func (f *InFlow) Dropped() uint64 {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	return f.dropped
}

// Conn is the connection carrying the flow.
func (f *InFlow) Conn() *Conn { return f.c }

// serveFlow runs an inbound FLOW stream for its whole life on the stream's
// goroutine: register the id, hand the flow to the handler, then wait for
// the stream to end (PROTOCOL.md §8.7). A returned error is a violation.
func (c *Conn) serveFlow(hdr []byte, s recvHalf) error {
	if !c.agreed.Datagrams {
		return &wire.ViolationError{Reason: "FLOW stream without agreed datagrams"}
	}
	h, err := wire.DecodeFlow(hdr)
	if err != nil {
		return err
	}
	d := c.datagrams()
	f := &InFlow{c: c, d: d, s: s, id: h.Flow, Header: h,
		ready: make(chan struct{}, 1), ended: make(chan struct{})}
	ok, err := d.register(f)
	if err != nil {
		return err
	}
	if !ok {
		s.CancelRead(quic.StreamErrorCode(wire.CodeLimitExceeded))
		return nil
	}
	defer d.unregister(f)
	if c.local == nil {
		d.startReader()
	}
	if fh, ok := c.handler.(FlowHandler); ok {
		fh.Flow(c, f)
	} else {
		f.Refuse(wire.CodeUnsupported)
	}
	if c.local != nil {
		return f.awaitRecords()
	}
	return f.await()
}

// await reads the FLOW stream to its end. Nothing may follow the header on
// QUIC: a byte is a violation.
func (f *InFlow) await() error {
	var one [1]byte
	n, err := io.ReadFull(f.s, one[:])
	switch {
	case n > 0:
		f.endErr = errs.New(errs.KindProtocol, "bytes after a FLOW header")
		err = &wire.ViolationError{Reason: "bytes after a FLOW header"}
	case err == io.EOF:
		f.endErr, err = io.EOF, nil
	default:
		f.endErr, err = readError(err), nil
	}
	close(f.ended)
	return err
}
