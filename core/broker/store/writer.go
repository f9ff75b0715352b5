package store

import (
	"errors"
	"fmt"
)

// Settlements, attempts, purges and payload removal are the queue's
// housekeeping, and none of it may hold up an admission or a delivery
// behind an fsync (issue 18 item 7). Settle and Attempt therefore only
// change the live set and encode their record into q.pending; one writer
// goroutine per queue appends what is pending with one write(2) per batch
// (group commit; §13.3 needs no fsync for either record) and then does
// the slow part outside the queue's lock: the checkpoint cell and segment
// purge (two fsyncs), and the journal fsync that must precede removing
// freed payloads.
//
// Ordering that recovery relies on: a SETTLE or ATTEMPT is queued only for
// a seq whose ADMIT is already in the journal, so it always lands after
// it; the batch is appended under q.mu, like every ADMIT, so a segment roll
// is always named after the next ADMIT's seq; a cell's low-water mark is
// computed after the batch that settled the messages below it was
// appended; and a freed payload is removed (or a quarantined one set
// aside) only after every open queue's settlements were fsynced: the
// message that let go of a shared body last is not the only one whose
// SETTLE a crash could undo (Store.syncSettlements).
const (
	// freeBatch and freeBatchBytes: freed payloads are removed in batches,
	// each after one journal fsync.
	freeBatch      = 64
	freeBatchBytes = 64 << 20
	// maxPendingBytes bounds q.pending: past it the caller writes the
	// batch itself (a write(2), never an fsync), so a stalled writer
	// cannot make it grow without end.
	maxPendingBytes = 256 << 10
)

// Settle records that seq is done. It does not wait for the disk: the
// SETTLE is written by the queue's writer, without fsync (a SETTLE lost in
// a crash means a redelivery, which at-least-once allows). The payload is
// freed when no live message of any queue references it, after a later
// journal fsync; whole segments are purged once every message they
// admitted is settled. An error other than "closed" or "not live" reports
// a failure of an earlier batch (the settle itself is done).
func (q *Queue) Settle(seq uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	m, err := q.liveLocked(seq)
	if err != nil {
		return err
	}
	q.pending = appendRecord(q.pending, &record{typ: recSettle, seq: seq})
	delete(q.live, seq)
	q.liveBytes -= m.BodyLen
	if !m.isInline() && q.s.payloads.release(m.Digest) {
		q.freed = append(q.freed, m.Digest)
		q.freedBytes += m.BodyLen
	}
	return q.queuedLocked()
}

// Attempt records that seq has now been delivered count times. Like
// Settle it does not wait for the disk, and an ATTEMPT lost in a crash
// only lowers a redelivery label.
func (q *Queue) Attempt(seq, count uint64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	m, err := q.liveLocked(seq)
	if err != nil {
		return err
	}
	q.pending = appendRecord(q.pending, &record{typ: recAttempt, seq: seq, count: count})
	m.Attempts = count
	return q.queuedLocked()
}

// queuedLocked wakes the writer for what the caller queued, writing it
// at once instead when pending is full, and hands over the writer's last
// failure.
func (q *Queue) queuedLocked() error {
	var err error
	if len(q.pending) >= maxPendingBytes {
		err = q.flushLocked()
	}
	select {
	case q.wake <- struct{}{}:
	default: // the writer is already due to run
	}
	if werr := q.writerErr; werr != nil && err == nil {
		q.writerErr = nil
		err = fmt.Errorf("store: an earlier settle or attempt batch failed: %w", werr)
	}
	return err
}

// flushLocked appends the pending frames with one write(2).
func (q *Queue) flushLocked() error {
	if len(q.pending) == 0 {
		return nil
	}
	_, err := q.j.appendFrames(q.pending, q.nextSeq)
	if cap(q.pending) > 2*maxPendingBytes {
		q.pending = nil
	} else {
		q.pending = q.pending[:0]
	}
	return err
}

// writeLoop is the queue's writer: one round per wake until Close.
func (q *Queue) writeLoop() {
	defer close(q.stopped)
	for {
		select {
		case <-q.wake:
		case <-q.stop:
			return
		}
		if err := q.housekeep(); err != nil {
			q.mu.Lock()
			if q.writerErr == nil {
				q.writerErr = err
			}
			q.mu.Unlock()
		}
	}
}

// housekeep writes the pending batch and then, outside the lock, purges
// what it allowed and removes a full batch of freed payloads. Rounds are
// serialised by houseMu (the writer's, and a test's through Housekeep), so
// cells are written one at a time.
func (q *Queue) housekeep() error {
	q.houseMu.Lock()
	defer q.houseMu.Unlock()
	q.mu.Lock()
	err := q.flushLocked()
	lw := q.lowWaterLocked()
	k := q.j.purgeable(lw)
	cell := checkpoint{generation: q.cell.generation + 1, lowWater: lw, nextSeq: q.nextSeq}
	var freed [][32]byte
	if err == nil && (len(q.freed) >= freeBatch || q.freedBytes >= freeBatchBytes) {
		freed, q.freed, q.freedBytes = q.freed, nil, 0
	}
	q.mu.Unlock()
	if err != nil {
		return err
	}
	if k > 0 {
		if err := q.purge(cell, k); err != nil {
			return err
		}
	}
	return q.removeFreed(freed)
}

// purge writes the new low-water mark to the cell, then deletes the first
// k segments, which hold only ADMITs below it. Only the writer (or Close,
// once the writer stopped) writes cells.
func (q *Queue) purge(c checkpoint, k int) error {
	if err := q.writeCell(c); err != nil {
		return err
	}
	return q.j.purge(k)
}

func (q *Queue) writeCell(c checkpoint) error {
	if err := writeCell(q.s.fs, q.j.dir, c); err != nil {
		return err
	}
	q.mu.Lock()
	q.cell = c
	q.mu.Unlock()
	return nil
}

// removeFreed makes every queue's settlements durable and then removes the
// payloads that are still unreferenced. When another queue's could not be,
// the payloads stay (errSettlementsUnsynced): the next Open's sweep takes
// them.
func (q *Queue) removeFreed(ds [][32]byte) error {
	if len(ds) == 0 {
		return nil
	}
	marks := q.s.payloads.marks(ds)
	if err := q.s.syncSettlements(q); err != nil {
		if errors.Is(err, errSettlementsUnsynced) {
			return nil
		}
		return err
	}
	return q.s.payloads.removeUnreferenced(marks)
}

// syncSettlements writes what Settle and Attempt queued and fsyncs the
// journal. A closed queue has nothing to do: Close synced what it wrote. A
// failure is also kept for the queue's next Settle to report, since
// another queue's writer may be the caller.
func (q *Queue) syncSettlements() error {
	q.mu.Lock()
	err := q.flushLocked()
	q.mu.Unlock()
	if err == nil {
		err = q.j.syncTo(q.j.end())
	}
	if errors.Is(err, errClosed) {
		return nil
	}
	if err != nil {
		q.mu.Lock()
		if q.writerErr == nil {
			q.writerErr = err
		}
		q.mu.Unlock()
	}
	return err
}

// Close stops the writer, writes what is pending, syncs the journal,
// removes payloads freed since the last batch, writes the checkpoint cell
// and closes the files; a failure of the writer not yet reported is its
// error. It is idempotent. The queue's live messages keep
// their payload references, and OpenQueue on the same Store hands them
// back.
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	q.mu.Unlock()
	close(q.stop)
	<-q.stopped

	q.mu.Lock()
	err := q.flushLocked()
	writerErr := q.writerErr
	freed := q.freed
	q.freed, q.freedBytes = nil, 0
	cell := checkpoint{generation: q.cell.generation + 1, lowWater: q.lowWaterLocked(), nextSeq: q.nextSeq}
	q.mu.Unlock()
	if err == nil {
		err = q.removeFreed(freed)
	}
	if err == nil && len(freed) == 0 {
		err = q.j.syncTo(q.j.end())
	}
	if err == nil {
		err = q.writeCell(cell)
	}
	q.mu.Lock()
	parked := q.handOverLocked()
	q.mu.Unlock()
	if cerr := q.j.close(); err == nil {
		err = cerr
	}
	q.s.park(q.id, parked, err)
	if err == nil && writerErr != nil {
		// The queue's state is whole (what that batch lost is redelivery,
		// which at-least-once allows), so it parks as usable.
		err = fmt.Errorf("store: a settle or attempt batch failed: %w", writerErr)
	}
	return err
}

// handOverLocked moves the live set out of the closing queue into the state
// the next OpenQueue of its path starts from, as recovery would build it.
func (q *Queue) handOverLocked() *recovered {
	q.j.mu.Lock()
	defer q.j.mu.Unlock()
	rq := &recovered{
		fs: q.s.fs, dir: q.j.dir, cell: q.cell, segs: append([]segment(nil), q.j.segs...), activeSize: q.j.activeSize,
		live: q.live, quarantined: q.quarantine, nextSeq: q.nextSeq, tornTails: q.tornTails, dropped: q.dropped,
	}
	q.live, q.quarantine, q.order, q.head, q.liveBytes = nil, nil, nil, 0, 0
	return rq
}
