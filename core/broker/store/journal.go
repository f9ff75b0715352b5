package store

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// journal is a queue's segmented, append-only log. Records go to the last
// segment with one write(2) each; a new segment starts when the active one
// would pass segBytes; old segments are only ever deleted as a prefix, never
// rewritten.
//
// Locking: mu guards the segment list and the active file; syncMu serialises
// fsyncs so that concurrent Flushed admits share one (group commit). Order:
// syncMu before mu. Neither is held by callers across anything but the call.
type journal struct {
	fs       FS
	dir      string
	segBytes int64

	mu         sync.Mutex
	segs       []segment // oldest first; the last is active
	active     File
	activeSize int64
	written    uint64 // logical bytes appended over the journal's life
	retired    []File // rolled-out segments, fsynced, closed by the next sync
	broken     error  // set when the file may hold a partial record
	buf        []byte

	syncMu sync.Mutex
	synced uint64 // logical bytes known durable
}

// openJournal opens the last segment for appending, or creates the first one
// at firstSeq when the queue has none. activeSize is the segment's valid
// length (recovery has already cut any torn tail).
func openJournal(fsys FS, dir string, segs []segment, activeSize int64, firstSeq uint64, segBytes int64) (*journal, error) {
	j := &journal{fs: fsys, dir: dir, segBytes: segBytes, segs: segs, activeSize: activeSize}
	if len(segs) == 0 {
		return j, j.startSegment(firstSeq)
	}
	path := segs[len(segs)-1].path
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, ioError("opening journal segment", path, err)
	}
	j.active = f
	return j, nil
}

// startSegment creates the segment for first and makes its name durable. The
// caller holds mu (or owns j exclusively).
func (j *journal) startSegment(first uint64) error {
	seg := segment{first: first, path: segmentPath(j.dir, first)}
	f, err := j.fs.OpenFile(seg.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return ioError("creating journal segment", seg.path, err)
	}
	if err := syncDirOf(j.fs, j.dir); err != nil {
		// Remove it, or the next roll would fail on the existing name.
		f.Close()
		j.fs.Remove(seg.path)
		return err
	}
	if j.active != nil {
		j.retired = append(j.retired, j.active)
	}
	j.active, j.activeSize = f, 0
	j.segs = append(j.segs, seg)
	return nil
}

// append writes r and returns the journal's logical end after it, the value
// to pass to syncTo. nextSeq is the seq the next ADMIT takes (r.seq for an
// ADMIT): a new segment is named after it.
func (j *journal) append(r *record, nextSeq uint64) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf = appendRecord(j.buf[:0], r)
	return j.writeLocked(j.buf, nextSeq)
}

// appendFrames writes already-encoded frames (a batch) with one write(2),
// as append does for one record.
func (j *journal) appendFrames(frames []byte, nextSeq uint64) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writeLocked(frames, nextSeq)
}

func (j *journal) writeLocked(frames []byte, nextSeq uint64) (uint64, error) {
	if j.broken != nil {
		return 0, j.broken
	}
	if err := j.maybeRoll(int64(len(frames)), nextSeq); err != nil {
		return 0, err
	}
	if _, err := j.active.Write(frames); err != nil {
		werr := ioError("appending to journal segment", j.activePath(), err)
		// Cut the partial record, or refuse every later append: a record
		// written after a partial one would turn a torn tail into corruption.
		if terr := j.active.Truncate(j.activeSize); terr != nil {
			j.broken = werr
		}
		return 0, werr
	}
	j.activeSize += int64(len(frames))
	j.written += uint64(len(frames))
	return j.written, nil
}

// maybeRoll starts a new segment when adding n bytes would pass segBytes.
// The old segment is fsynced first, so a crash can only tear the last
// segment. A segment that admitted nothing cannot roll (the new name would
// repeat); it grows only by SETTLE and ATTEMPT records of earlier messages.
func (j *journal) maybeRoll(n int64, nextSeq uint64) error {
	if j.activeSize == 0 || j.activeSize+n <= j.segBytes || nextSeq <= j.segs[len(j.segs)-1].first {
		return nil
	}
	if err := j.active.Sync(); err != nil {
		j.broken = ioError("fsync of journal segment", j.activePath(), err)
		return j.broken
	}
	return j.startSegment(nextSeq)
}

func (j *journal) activePath() string { return j.segs[len(j.segs)-1].path }

// end is the logical end of what has been appended.
func (j *journal) end() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.written
}

// syncTo returns once every byte up to end is durable. Callers that arrive
// while an fsync runs wait for it and usually find their bytes covered by
// it: one fsync for many appends (group commit).
func (j *journal) syncTo(end uint64) error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.synced >= end {
		return nil
	}
	j.mu.Lock()
	if j.broken != nil {
		j.mu.Unlock()
		return j.broken
	}
	target, f, path, retired := j.written, j.active, j.activePath(), j.retired
	j.retired = nil
	j.mu.Unlock()
	for _, r := range retired {
		r.Close() // fsynced when it was rolled out
	}
	if err := f.Sync(); err != nil {
		// After a failed fsync the kernel may have dropped the dirty pages:
		// nothing written since the last good fsync can be trusted again.
		err = ioError("fsync of journal segment", path, err)
		j.mu.Lock()
		j.broken = err
		j.mu.Unlock()
		return err
	}
	j.synced = target
	return nil
}

// purgeable counts the leading segments all of whose ADMITs are below
// lowWater: segment i qualifies when segment i+1 starts at or below it. The
// active segment never does.
func (j *journal) purgeable(lowWater uint64) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := 0
	for k+1 < len(j.segs) && j.segs[k+1].first <= lowWater {
		k++
	}
	return k
}

// purge deletes the first k segments. Deleting only a prefix keeps recovery
// exact without the cell: a SETTLE always follows its ADMIT, so a deleted
// SETTLE's ADMIT was deleted too, and no settled message can come back.
// That holds only if the deletions reach the disk in order — a file system
// may make a later unlink durable before an earlier one, leaving a hole
// that turns the next segment's SETTLEs into records of seqs never
// admitted — so each deletion is made durable (a directory fsync) before
// the next. The files go outside mu, so appends never wait for those fsyncs;
// only the writer (or Close, once it stopped) purges.
func (j *journal) purge(k int) error {
	j.mu.Lock()
	victims := append([]segment(nil), j.segs[:min(k, len(j.segs)-1)]...)
	j.mu.Unlock()
	for _, seg := range victims {
		if err := j.fs.Remove(seg.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ioError("removing purged journal segment", seg.path, err)
		}
		if err := syncDirOf(j.fs, j.dir); err != nil {
			return err
		}
		j.mu.Lock()
		j.segs = j.segs[1:]
		j.mu.Unlock()
	}
	return nil
}

// segmentCount is the number of segments on disk.
func (j *journal) segmentCount() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.segs)
}

// close closes every file; it does not sync (Queue.Close does first).
func (j *journal) close() error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.retired {
		r.Close()
	}
	j.retired = nil
	if j.active == nil {
		return nil
	}
	err := j.active.Close()
	j.active = nil
	if j.broken == nil {
		j.broken = errClosed
	}
	if err != nil {
		return ioError("closing journal segment", j.activePath(), err)
	}
	return nil
}
