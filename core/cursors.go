package weida

import (
	"context"
	"errors"
	"sync"

	"github.com/weida-go/weida/core/cursor"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Cursors is the sending side's view of the report it ordered on one
// transfer: for each ordered level, the highest payload offset the receiver
// reported (PROTOCOL.md §8.6.2). Reports are absolute, so a repeated or
// reordered one changes nothing, and a level nobody reports stays absent.
//
// The report ends when the receiver finishes it, when its stream is reset,
// or when the connection ends — none of them is an error, and they are not
// told apart. A receiver with nothing to report never opens a report at
// all, so a report can also just stay silent until the connection ends:
// watch it with a ctx, and Close it once it no longer matters. Methods are
// safe for concurrent use; Changed is for one reader.
type Cursors struct {
	f *reportFeed
}

// Ignored counts the receiver's records that measured nothing and were
// dropped: an offset of one of weida's levels beyond the finished
// payload's length, or a level that was not ordered. The report goes on
// around them.
func (c *Cursors) Ignored() uint64 {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.beyond + c.f.offsets.Stray()
}

// Snapshot returns the levels reported so far and their offsets.
func (c *Cursors) Snapshot() map[uint64]uint64 {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.offsets.Snapshot()
}

// Offset is the highest offset reported for level; false when it was not
// ordered or nobody reported it yet.
func (c *Cursors) Offset(level uint64) (uint64, bool) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.offsets.Offset(level)
}

// Changed waits until the report moved since Changed last returned and
// returns the new snapshot with more = true. Once the report ended and
// every change was returned, it returns more = false (nil map, nil error):
// no more cursors will come. It fails with Canceled only when ctx ends.
//
//	for {
//		snap, more, err := cursors.Changed(ctx)
//		if err != nil || !more {
//			break
//		}
//		use(snap)
//	}
func (c *Cursors) Changed(ctx context.Context) (snapshot map[uint64]uint64, more bool, err error) {
	f := c.f
	for {
		f.mu.Lock()
		if f.version != f.seen {
			f.seen = f.version
			snap := f.offsets.Snapshot()
			f.mu.Unlock()
			return snap, true, nil
		}
		if f.ended {
			f.mu.Unlock()
			return nil, false, nil
		}
		if f.wake == nil {
			f.wake = make(chan struct{})
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, false, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for a cursor")
		}
	}
}

// Close stops watching: the report's id is released and a report being
// read is stopped (STOP_SENDING CANCELED, which ends the receiver's report
// silently). What was reported stays readable. Close is idempotent.
func (c *Cursors) Close() error {
	c.f.cancel()
	return nil
}

// reportFeed is the state behind a Cursors, and the transport's ReportSink
// for its id: it awaits the CURSOR stream, reads it, and wakes Changed.
type reportFeed struct {
	conn *transport.Conn

	mu      sync.Mutex
	id      uint64
	offsets cursor.Offsets
	version uint64 // counts changes
	seen    uint64 // the version Changed last returned
	ended   bool
	wake    chan struct{}           // made by a waiting Changed, closed at the next change or the end
	stream  *transport.CursorStream // while it is read
	records uint64                  // records received, for the benchmarks
	bytes   uint64                  // record bytes received, for the benchmarks
	// length is the transfer's payload length once it finished; records
	// of weida's levels beyond it are ignored and counted in beyond.
	length      uint64
	lengthKnown bool
	beyond      uint64
}

// setLength bounds the report's offsets by the finished transfer's length.
// A nil feed (nothing was ordered) does nothing.
func (f *reportFeed) setLength(n uint64) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.length, f.lengthKnown = n, true
	f.mu.Unlock()
}

func newReportFeed(c *transport.Conn, o cursor.Order) *reportFeed {
	return &reportFeed{conn: c, offsets: cursor.NewOffsets(o)}
}

func (f *reportFeed) setID(id uint64) {
	f.mu.Lock()
	f.id = id
	f.mu.Unlock()
}

// ReportEnded implements transport.ReportSink: no stream will come.
func (f *reportFeed) ReportEnded() { f.end() }

// ServeReport implements transport.ReportSink: it reads the report's
// records until the stream ends. A record cut off by FIN or naming a
// reserved level closes the connection PROTOCOL_VIOLATION (§14.1); a reset
// or a lost connection just ends the report.
func (f *reportFeed) ServeReport(s *transport.CursorStream) {
	f.mu.Lock()
	if f.ended { // closed by its owner between the dispatch and now
		f.mu.Unlock()
		s.Stop(wire.CodeCanceled)
		return
	}
	f.stream = s
	f.mu.Unlock()
	r := cursor.NewReader(s)
	var batch [32]wire.CursorRecord
	for {
		n, err := r.Next(batch[:])
		f.apply(batch[:n], r.BytesRead())
		if err != nil {
			if errors.Is(err, wire.ErrProtocolViolation) {
				f.conn.CloseAsync(wire.CodeProtocolViolation, err.Error())
			}
			f.end()
			return
		}
	}
}

// apply takes a batch of records in and wakes Changed if anything moved.
// Records read after the owner closed the report are dropped.
func (f *reportFeed) apply(recs []wire.CursorRecord, bytesRead uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended {
		return
	}
	changed := false
	for _, rec := range recs {
		// An application level's offset means what the application says;
		// weida's own levels count payload bytes.
		if f.lengthKnown && rec.Level < cursor.ApplicationFloor && rec.Offset > f.length {
			f.beyond++
			continue
		}
		changed = f.offsets.Apply(rec) || changed
	}
	f.records += uint64(len(recs))
	f.bytes = bytesRead
	if changed {
		f.version++
		f.wakeLocked()
	}
}

// cancel is the owner giving the report up. Ending the feed under the
// lock decides the race with ServeReport: either it already holds the
// stream, which is stopped here, or it finds the feed ended and stops the
// stream itself. A nil feed (nothing was ordered) does nothing.
func (f *reportFeed) cancel() {
	if f == nil {
		return
	}
	f.mu.Lock()
	id, s, wasEnded := f.id, f.stream, f.ended
	f.endLocked()
	f.mu.Unlock()
	if wasEnded {
		return
	}
	f.conn.ReleaseReport(id)
	if s != nil {
		s.Stop(wire.CodeCanceled)
	}
}

func (f *reportFeed) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLocked()
}

func (f *reportFeed) endLocked() {
	if !f.ended {
		f.ended = true
		f.wakeLocked()
	}
}

// wakeLocked releases a waiting Changed. The channel exists only while one
// waits, so a flood of records costs no allocation beyond the reader's pace.
func (f *reportFeed) wakeLocked() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// serveCursor dispatches an inbound CURSOR stream to the report it names on
// its connection. An id this side never handed out (or already released)
// is stopped CANCELED and allocates nothing; the connection is kept
// (§8.6.2 rule 3).
func serveCursor(rt *Runtime, c *transport.Conn, head wire.CursorHead, s *transport.CursorStream) {
	sink, ok := c.TakeReport(head.ReportID)
	if !ok {
		rt.strayReports.Add(1)
		s.Stop(wire.CodeCanceled)
		return
	}
	sink.ServeReport(s)
}

// StrayReports counts CURSOR streams that named a report id this side
// never handed out on their connection, or had let go of: each was
// stopped CANCELED and read no further, the connection kept (PROTOCOL.md
// §8.6.2 rule 3). A report id belongs to one connection, so a peer cannot
// report on another connection's transfers; this is where its attempts
// show.
func (rt *Runtime) StrayReports() uint64 { return rt.strayReports.Load() }
