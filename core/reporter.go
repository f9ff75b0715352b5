package weida

import (
	"context"
	"io"
	"time"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Reporter is the receiving side of a report order: it tells the sender
// how far the transfer's payload got, per level, on a stream of its own
// toward the sender (PROTOCOL.md §8.6.3). A transfer hands one out only
// when its sender ordered something.
//
// Report and Finish never wait for the network or for the sender: records
// are written in the background, and writing is best effort — if the
// sender stopped listening or the connection ended, the report is over and
// later calls change nothing. A reporter that reports nothing opens
// nothing. Always Finish a reporter: the sender sees its report end only
// then. Methods are safe for concurrent use.
type Reporter struct {
	w *cursor.Writer
}

// newReporter returns the reporter of the order h carries, or nil when h
// orders nothing. The decoder already refused malformed orders (§8.3.5),
// so an order that does not validate here cannot arrive.
func newReporter(c *transport.Conn, h *wire.Data) *Reporter {
	return newReporterAt(c, h, cursor.Granularity{}, 0)
}

// newReporterAt is newReporter writing records at granularity g (the zero
// value is the default pace). openWithin, when positive, bounds the wait
// for the stream's open (the sender's stream credit): past it the report
// is abandoned.
func newReporterAt(c *transport.Conn, h *wire.Data, g cursor.Granularity, openWithin time.Duration) *Reporter {
	if !h.ReportID.Ok || len(h.Report) == 0 {
		return nil
	}
	o, err := cursor.NewOrder(h.Report, cursor.Mode(h.ReportMode))
	if err != nil {
		return nil
	}
	id := h.ReportID.V
	// The open waits for the sender's stream credit; OpenUniStreamSync
	// gives up when the connection ends, which bounds it, and openWithin
	// sooner. Records are a few bytes, far inside a stream's window, so
	// once open the writes do not wait on the sender's reading.
	open := func() (io.WriteCloser, error) {
		ctx := context.Background()
		if openWithin > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, openWithin)
			defer cancel()
		}
		return c.OpenCursor(ctx, id)
	}
	return &Reporter{w: cursor.NewWriter(o, g, open)}
}

// Done is closed once the report is over: finished and written, or
// abandoned.
func (r *Reporter) Done() <-chan struct{} { return r.w.Done() }

// Abandoned reports whether the report ended because its stream could not
// be opened or written (the sender stopped reading or never gave the
// stream credit in time), not because it was finished.
func (r *Reporter) Abandoned() bool { return r.w.Abandoned() }

// AfterDone has f run, on a goroutine of its own, once the report is over.
func (r *Reporter) AfterDone(f func()) { r.w.AfterEnd(f) }

// Levels are the levels the sender ordered, ascending.
func (r *Reporter) Levels() []uint64 { return r.w.Order().Levels() }

// Mode is when the sender wants the records: Progress as levels advance,
// or FinalOnly once, at Finish.
func (r *Reporter) Mode() ReportMode { return ReportMode(r.w.Order().Mode()) }

// Report states that payload bytes [0, offset) reached level (an absolute
// offset into the payload, never a delta). A level the sender did not order
// is ignored, not refused, and so is an offset not beyond the level's last.
// In Progress mode a record leaves each time the level crosses another
// MiB, or 100 ms after an advance, whichever comes first; in FinalOnly
// mode at Finish. It fails with NoReply after Finish and with Protocol for an
// offset above 2^62-1, which has no wire encoding.
func (r *Reporter) Report(level, offset uint64) error { return r.w.Report(level, offset) }

// Finish ends the report: the latest offset of every reported level goes
// out (in FinalOnly mode exactly one per level), then the end of the
// report. A second Finish fails with NoReply.
func (r *Reporter) Finish() error { return r.w.Finish() }
