package cursor

import (
	"io"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// The default granularity of a Progress report (decision 0023 §4.5): a
// record each time a level crosses a multiple of DefaultEvery bytes, or
// DefaultInterval after an advance nobody wrote yet, whichever first.
const (
	DefaultEvery    = 1 << 20
	DefaultInterval = 100 * time.Millisecond
)

// Granularity is how often a Progress report writes: each time a level
// crosses a multiple of Every bytes, and Interval after an advance that was
// not written yet, whichever comes first. It is local and never
// negotiated; a zero field takes its default. Writing more often is always
// allowed, so a record due for one level carries the other levels' unwritten
// advances with it.
type Granularity struct {
	Every    uint64
	Interval time.Duration
}

func (g Granularity) withDefaults() Granularity {
	if g.Every == 0 {
		g.Every = DefaultEvery
	}
	if g.Interval <= 0 {
		g.Interval = DefaultInterval
	}
	return g
}

// Opener opens a report's CURSOR stream, its head header included. A
// Writer calls it at most once, on its own goroutine, on the first record;
// it may wait (for the peer's stream credit).
type Opener func() (io.WriteCloser, error)

// TryWriter is what a report's stream may offer besides Write: queue all
// of p at once without waiting, or queue nothing and report false. Once
// the stream is open, a Writer writes a due record with it from Report
// itself, sparing a goroutine per record, and falls back to its own
// goroutine when the write would have to wait.
type TryWriter interface {
	TryWrite(p []byte) (bool, error)
}

// maxRecordLen is the longest record: two 8-byte varints.
const maxRecordLen = 16

// Writer is the reporting side of one report (PROTOCOL.md §8.6.3). Report
// and Finish only record what is due and never wait for the network: a
// goroutine of the writer's own, started when something is due and gone
// when nothing is, opens the stream lazily and writes; an open stream that
// is a TryWriter takes a due record at once when it can without waiting.
// Writes are best effort: once one fails (the orderer stopped the stream,
// the connection ended) the report is over and later reports are dropped
// silently.
type Writer struct {
	order Order
	gran  Granularity
	open  Opener

	mu       sync.Mutex
	latest   [MaxLevels]uint64 // the highest offset reported per level
	crossed  [MaxLevels]uint64 // per level, the multiple of Every last crossed
	reported uint32            // bit i: order.Level(i) was reported
	dirty    uint32            // bit i: latest[i] is not written yet
	timer    *time.Timer       // the Interval rule; nil until first armed
	armed    bool
	flushing bool // the writing goroutine runs
	opened   bool // the stream was opened
	finished bool // Finish was called
	over     bool // nothing more will be written: finished and flushed, or failed
	failed   bool // over because the stream could not be opened or written
	onEnd    func()
	done     chan struct{}

	// stream belongs to the writing goroutine while it runs; otherwise,
	// once opened, to whoever holds mu.
	stream io.WriteCloser
}

// NewWriter returns the writer of a report ordered by o, writing at g's
// granularity on the stream open opens.
func NewWriter(o Order, g Granularity, open Opener) *Writer {
	return &Writer{order: o, gran: g.withDefaults(), open: open, done: make(chan struct{})}
}

// Order is the order being reported on.
func (w *Writer) Order() Order { return w.order }

// Report states that payload bytes [0, offset) reached level. A level that
// was not ordered is ignored, as is an offset not beyond the level's last
// one (cursors only move forward). In Progress mode the record is written
// when the granularity says so; in FinalOnly mode only at Finish. It fails
// with NoReply after Finish and with Protocol for an offset without a
// varint encoding; a report that already failed ignores it.
func (w *Writer) Report(level, offset uint64) error {
	if offset > wire.MaxVarint {
		return errs.New(errs.KindProtocol, "report: offset %d exceeds the varint range (2^62-1)", offset)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return errs.New(errs.KindNoReply, "report: the report was already finished")
	}
	i, ordered := w.order.Index(level)
	bit := uint32(1) << i
	if !ordered || w.over || (w.reported&bit != 0 && offset <= w.latest[i]) {
		return nil
	}
	w.latest[i] = offset
	w.reported |= bit
	if w.order.Mode() == FinalOnly {
		return nil
	}
	w.dirty |= bit
	// Counting crossings rather than distance from the last record keeps
	// the pace at one record per Every bytes even though each record
	// carries the offset current when it is written, a little further on.
	switch step := offset / w.gran.Every; {
	case step > w.crossed[i]:
		w.crossed[i] = step
		w.flushLocked()
	case !w.flushing && !w.armed:
		w.armLocked()
	}
	return nil
}

// Finish ends the report: it writes the latest offset of every level not
// written yet (in FinalOnly mode, exactly one record per reported level)
// and the FIN, in the background. A report with nothing to write opens
// nothing. A second Finish fails with NoReply.
func (w *Writer) Finish() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return errs.New(errs.KindNoReply, "finish: the report was already finished")
	}
	w.finished = true
	w.disarmLocked()
	if w.over {
		return nil
	}
	if w.order.Mode() == FinalOnly {
		w.dirty = w.reported
	}
	if w.dirty == 0 && !w.opened && !w.flushing {
		w.endLocked()
		return nil
	}
	w.startFlushLocked()
	return nil
}

// Done is closed once nothing more will be written: after Finish, when
// the FIN was written (or nothing had to be), or as soon as a write failed.
func (w *Writer) Done() <-chan struct{} { return w.done }

func (w *Writer) armLocked() {
	w.armed = true
	if w.timer == nil {
		w.timer = time.AfterFunc(w.gran.Interval, w.intervalElapsed)
		return
	}
	w.timer.Reset(w.gran.Interval)
}

func (w *Writer) disarmLocked() {
	if w.armed {
		w.armed = false
		w.timer.Stop()
	}
}

// intervalElapsed is the Interval rule: an advance waited long enough.
func (w *Writer) intervalElapsed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	if w.dirty != 0 && !w.over {
		w.flushLocked()
	}
}

// flushLocked writes what is due: at once when the stream is open, idle
// and takes it without waiting, else through the writing goroutine.
func (w *Writer) flushLocked() {
	if w.flushing || !w.tryWriteLocked() {
		w.startFlushLocked()
	}
}

// tryWriteLocked writes every unwritten advance with TryWrite; false means
// it did not (no open TryWriter, or it would have waited).
func (w *Writer) tryWriteLocked() bool {
	tw, ok := w.stream.(TryWriter)
	if !ok || !w.opened {
		return false
	}
	var buf [MaxLevels * maxRecordLen]byte
	written, err := tw.TryWrite(w.encodeDirtyLocked(buf[:0]))
	switch {
	case err != nil:
		w.endLocked()
		return true
	case !written:
		return false
	}
	w.commitDirtyLocked()
	return true
}

// startFlushLocked makes sure the writing goroutine runs; a running one
// picks up what became due.
func (w *Writer) startFlushLocked() {
	w.disarmLocked()
	if !w.flushing {
		w.flushing = true
		go w.flush()
	}
}

// flush is the writing goroutine: it writes what is due until nothing is,
// and after Finish the FIN. No lock is held while it opens or writes.
func (w *Writer) flush() {
	var buf [MaxLevels * maxRecordLen]byte
	for {
		w.mu.Lock()
		recs, fin := w.takeDirtyLocked(buf[:0]), w.finished
		if len(recs) == 0 && !fin {
			w.flushing = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if len(recs) > 0 && !w.write(recs) {
			w.end()
			return
		}
		if fin {
			if w.stream != nil {
				_ = w.stream.Close()
			}
			w.end()
			return
		}
	}
}

// takeDirtyLocked encodes every unwritten advance into buf and counts it
// as written.
func (w *Writer) takeDirtyLocked(buf []byte) []byte {
	buf = w.encodeDirtyLocked(buf)
	w.commitDirtyLocked()
	return buf
}

// encodeDirtyLocked appends a record for every unwritten advance to buf.
func (w *Writer) encodeDirtyLocked(buf []byte) []byte {
	for i := 0; i < w.order.Len(); i++ {
		if w.dirty&(1<<i) != 0 {
			buf = wire.AppendCursorRecord(buf, wire.CursorRecord{Level: w.order.Level(i), Offset: w.latest[i]})
		}
	}
	return buf
}

// commitDirtyLocked counts every unwritten advance as written.
func (w *Writer) commitDirtyLocked() {
	w.dirty = 0
	w.disarmLocked()
}

// write opens the stream on first use and writes recs; false means the
// report is over, abandoned.
func (w *Writer) write(recs []byte) bool {
	if w.stream == nil {
		s, err := w.open()
		if err != nil {
			w.markFailed()
			return false
		}
		w.stream = s
		w.mu.Lock()
		w.opened = true
		w.mu.Unlock()
	}
	if _, err := w.stream.Write(recs); err != nil {
		w.markFailed()
		return false
	}
	return true
}

func (w *Writer) markFailed() {
	w.mu.Lock()
	w.failed = true
	w.mu.Unlock()
}

// Abandoned reports whether the report ended because its stream could not
// be opened or written (the orderer stopped reading, its stream credit
// never came, the connection ended), not because it was finished.
func (w *Writer) Abandoned() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// AfterEnd has f run, on a goroutine of its own, once the report is over
// (at once if it is already). Only the last f set runs.
func (w *Writer) AfterEnd(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		go f()
		return
	}
	w.onEnd = f
}

func (w *Writer) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushing = false
	w.endLocked()
}

// endLocked makes the report over: nothing is written any more.
func (w *Writer) endLocked() {
	if !w.over {
		w.over = true
		w.dirty = 0
		w.disarmLocked()
		close(w.done)
		if w.onEnd != nil {
			go w.onEnd()
		}
	}
}
