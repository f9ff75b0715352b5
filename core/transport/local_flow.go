package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// Datagram flows on a local transport (PROTOCOL.md §12) have no QUIC
// DATAGRAM frames to ride: the FLOW stream carries its datagrams itself,
// after the header and until its FIN, as [length varint][length bytes]
// records. Everything else is shared with QUIC: the connection's send ring
// drops the oldest record when full, the receiver's per-flow ring drops its
// oldest datagram, and the counters are the same. The capability in HELLO
// decides, as over QUIC: both runtimes need datagram_receive_bytes > 0.

// LocalMaxDatagram is LOCAL_MAX_DATAGRAM: the largest datagram a local flow
// carries. A longer record from the peer closes the connection with
// PROTOCOL_VIOLATION.
const LocalMaxDatagram = 1200

// openLocalFlow opens the FLOW stream of a local flow and writes its
// header. With wait unset nothing waits: at max_local_streams it fails
// LimitExceeded, and on a socket whose peer parked no reverse connection
// NoParkedConnection.
func (c *Conn) openLocalFlow(ctx context.Context, frame []byte, wait bool) (localStream, error) {
	var s localStream
	var err error
	if wait {
		s, err = c.local.open(ctx, false)
	} else {
		s, err = c.openLocalNow()
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.Write(frame); err != nil {
		s.CancelWrite(quic.StreamErrorCode(wire.CodeCanceled))
		return nil, localWriteError(err)
	}
	return s, nil
}

// openLocalNow opens a one-way local stream without waiting: at
// max_local_streams it fails LimitExceeded, and on a socket whose peer
// parked no reverse connection NoParkedConnection.
func (c *Conn) openLocalNow() (localStream, error) {
	s, err := c.local.open(expiredContext, false)
	if errs.KindOf(err) == errs.KindCanceled {
		return nil, errs.New(errs.KindLimitExceeded, "no local stream now: max_local_streams are live")
	}
	return s, err
}

// expiredContext has already ended: an open under it takes a free slot or
// parked connection, and waits for none. One serves every such open.
var expiredContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// appendLocalRecord appends one datagram as a local FLOW record.
func appendLocalRecord(b, payload []byte) []byte {
	return append(wire.AppendVarint(b, uint64(len(payload))), payload...)
}

// writeLocal writes one queued record on the flow's own stream; the sender
// goroutine calls it, so a socket write that waits stalls only the send
// ring, which drops its oldest meanwhile.
func (f *OutFlow) writeLocal(record []byte) error {
	if _, err := f.s.Write(record); err != nil {
		err = localWriteError(err)
		f.localErr.CompareAndSwap(nil, &flowEnd{err})
		return err
	}
	return nil
}

// closeLocal ends a local flow in order: its FIN is queued behind the
// records Send already accepted, so they are written first.
func (f *OutFlow) closeLocal() {
	if f.closedHere.Swap(true) {
		return
	}
	d := f.c.datagrams()
	d.mu.Lock()
	d.sendQ = append(d.sendQ, outDatagram{flow: f})
	d.wakeSenderLocked()
}

// flowEnd boxes the error that ended a local flow for an atomic.Pointer.
type flowEnd struct{ err error }

// localEnding classifies why a local flow ended. A local refusal need not
// reach the sender (§12): in process it does, with its code, through the
// pipe; on a socket it shows as the next record's failed write.
func (f *OutFlow) localEnding() (err error, connectionLost bool) {
	if f.closedHere.Load() {
		return errs.New(errs.KindCanceled, "the flow was closed"), false
	}
	if err := f.c.Err(); err != nil {
		return err, true
	}
	if e := f.localErr.Load(); e != nil {
		return e.err, false
	}
	end := &flowEnd{errs.New(errs.KindCanceled, "the flow ended")}
	lost := false
	switch s := f.s.(type) {
	case *unixStream:
		// Only a failed record write ends a unix flow's sending side, and
		// the sender files its error just after: classify it the same way
		// now rather than race it.
		if lost = s.link.peerGone(); lost {
			end.err = lossError(s.link.cause())
		} else {
			end.err = errs.New(errs.KindRejected, "the local peer stopped reading the flow")
		}
	default:
		// In process the reader stopped the pipe, and a FIN on it now
		// fails with the stop code.
		if err := f.s.Close(); err != nil {
			end.err = localWriteError(err)
		}
	}
	if !f.localErr.CompareAndSwap(nil, end) {
		return f.localErr.Load().err, false
	}
	return end.err, lost
}

// localWriteError maps a local stream's write error: a unix stream's are
// already classified, a pipe's are quic-go's.
func localWriteError(err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		return e
	}
	return writeError(err)
}

// awaitRecords reads a local FLOW stream's records into the flow's ring
// until its end. A record longer than LocalMaxDatagram, or a FIN inside a
// record, is a violation.
func (f *InFlow) awaitRecords() error {
	r := bufio.NewReaderSize(f.s, 2*LocalMaxDatagram)
	var err error
	for {
		var payload []byte
		if payload, err = readLocalRecord(r); err != nil {
			break
		}
		f.d.mu.Lock()
		f.d.pushLocked(f, payload)
		f.d.mu.Unlock()
	}
	var violation *wire.ViolationError
	switch {
	case err == io.EOF:
		f.endErr, err = io.EOF, nil
	case errors.As(err, &violation):
		f.endErr = errs.New(errs.KindProtocol, "%s", violation.Reason)
	default:
		f.endErr, err = readError(err), nil
	}
	close(f.ended)
	return err
}

// readLocalRecord reads one [length varint][length bytes] record; io.EOF
// only at a record boundary. The length is checked before allocating.
func readLocalRecord(r *bufio.Reader) ([]byte, error) {
	first, err := r.ReadByte()
	if err != nil {
		return nil, err
	}
	size := 1 << (first >> 6)
	length := uint64(first & 0x3f)
	for range size - 1 {
		b, err := r.ReadByte()
		if err != nil {
			return nil, recordCut(err)
		}
		length = length<<8 | uint64(b)
	}
	if length > LocalMaxDatagram {
		return nil, &wire.ViolationError{Reason: fmt.Sprintf("a local FLOW record of %d bytes exceeds LOCAL_MAX_DATAGRAM %d", length, LocalMaxDatagram)}
	}
	payload := make([]byte, length)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, recordCut(err)
	}
	return payload, nil
}

// recordCut turns a FIN inside a record into a violation; other read
// errors (a reset, the connection's end) pass through.
func recordCut(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &wire.ViolationError{Reason: "FIN inside a local FLOW record"}
	}
	return err
}
