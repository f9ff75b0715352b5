package transport

import (
	"context"
	"errors"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/wire"
)

// The report ids of PROTOCOL.md §8.3.5 belong to the connection: the side
// that orders a report allocates its id from its own space on the
// connection the transfer travels, and the receiver reports on a CURSOR
// stream it opens on that same connection. So the table of ids lives here
// and ends with the connection.

// ReportSink awaits, and then reads, the CURSOR stream of one report this
// side ordered on the connection.
type ReportSink interface {
	cursor.Awaiting
	// ServeReport reads the report's CURSOR stream after its head, on the
	// stream's own goroutine, until the stream ends.
	ServeReport(s *CursorStream)
}

// OrderReport hands out the next report id of this connection for sink:
// from 1 upward, never reused. At cursor.MaxAwaiting reports awaiting their
// stream the oldest is let go (told ReportEnded). It fails once the
// connection has ended.
func (c *Conn) OrderReport(sink ReportSink) (uint64, error) {
	id, ok := c.reports.Open(sink)
	if !ok {
		return 0, c.Err()
	}
	return id, nil
}

// TakeReport removes and returns the sink awaiting report id, whose CURSOR
// stream arrived. False for an id this side never handed out, already
// took or released: answer that stream STOP_SENDING(CANCELED) (§8.6.2
// rule 3).
func (c *Conn) TakeReport(id uint64) (ReportSink, bool) { return c.reports.Take(id) }

// ReleaseReport forgets report id: its orderer gave it up. A stream that
// arrives for it later is unknown.
func (c *Conn) ReleaseReport(id uint64) { c.reports.Release(id) }

// OpenCursor opens the CURSOR stream of report id toward the peer, to
// report on a transfer this side received. It waits at the peer's uni
// stream budget, bounded by ctx and the connection's life. The head header
// leaves with the first records.
func (c *Conn) OpenCursor(ctx context.Context, id uint64) (*CursorWriter, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	s, err := c.openUniStream(ctx)
	if err != nil {
		return nil, err
	}
	head := wire.CursorHead{ReportID: id}
	return &CursorWriter{s: s, head: wire.AppendFrame(make([]byte, 0, 32), wire.KindCursor, &head)}, nil
}

// CursorWriter is an outgoing CURSOR stream: raw records after the head,
// until Close (FIN). It has no transport receipt: a report is not a
// transfer, and drain does not wait for one.
type CursorWriter struct {
	s    cursorSink
	head []byte // the preamble and head header, until the first write
}

// Write writes whole records; the first write carries the head with it.
func (w *CursorWriter) Write(p []byte) (int, error) {
	if w.head != nil {
		frame := append(w.head, p...)
		w.head = nil
		n, err := w.s.Write(frame)
		return max(n-(len(frame)-len(p)), 0), writeError(err)
	}
	n, err := w.s.Write(p)
	return n, writeError(err)
}

// TryWrite queues p whole without waiting, or queues nothing and reports
// false when flow control would make it wait — and before the first
// Write, which carries the head.
func (w *CursorWriter) TryWrite(p []byte) (bool, error) {
	if w.head != nil {
		return false, nil
	}
	err := w.s.TryWriteAll(p)
	if errors.Is(err, quic.ErrWouldBlock) {
		return false, nil
	}
	return err == nil, writeError(err)
}

// Close ends the report with a FIN.
func (w *CursorWriter) Close() error {
	if w.head != nil {
		if _, err := w.Write(nil); err != nil {
			return err
		}
	}
	return writeError(w.s.Close())
}
