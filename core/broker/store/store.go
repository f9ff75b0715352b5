package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log"
	"path/filepath"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// DefaultSegmentBytes is the journal segment size when Options leaves it 0.
const DefaultSegmentBytes = 64 << 20

// MaxPathBytes caps a queue path (BROKER.md §1: opaque bytes, at most 512).
const MaxPathBytes = 512

// Options tunes a Store.
type Options struct {
	// SegmentBytes is the size at which a journal segment rolls; 0 means
	// DefaultSegmentBytes. Only whole segments are ever purged.
	SegmentBytes int64
	// FS is the file system the store uses; nil means OSFS. Tests pass a
	// failing or power-cut disk here.
	FS FS
	// Logf hears what recovery did that no error reports: a Written
	// message dropped because an OS crash took its payload. Nil means the
	// standard logger.
	Logf func(format string, args ...any)
}

// Store is one node's data directory: the shared payload store and one
// journal per queue. It is safe for concurrent use.
type Store struct {
	dir      string
	opt      Options
	fs       FS
	payloads *payloads
	lock     io.Closer

	mu        sync.Mutex
	recovered map[string]*recovered // queue id → recovered at Open, not yet opened
	failed    map[string]error      // queue id → why its recovery failed
	open      map[string]*Queue
	closed    bool
}

// Open opens (creating it 0700 if missing) the data directory dir and runs
// recovery for every queue in it before returning, so that payload
// refcounts cover all queues before any payload is deleted. A queue that
// fails to recover does not fail Open: OpenQueue reports it, and no payload
// is swept while any queue's references are unknown.
func Open(dir string, opt Options) (*Store, error) {
	if opt.SegmentBytes <= 0 {
		opt.SegmentBytes = DefaultSegmentBytes
	}
	if opt.FS == nil {
		opt.FS = OSFS{}
	}
	if opt.Logf == nil {
		opt.Logf = log.Printf
	}
	if err := makeDataDir(opt.FS, dir); err != nil {
		return nil, err
	}
	lock, err := lockDir(opt.FS, dir)
	if err != nil {
		return nil, err
	}
	s := &Store{
		dir: dir, opt: opt, fs: opt.FS, lock: lock,
		payloads:  newPayloads(opt.FS, filepath.Join(dir, "payload")),
		recovered: make(map[string]*recovered),
		failed:    make(map[string]error),
		open:      make(map[string]*Queue),
	}
	if err := s.recoverAll(); err != nil {
		lock.Close()
		return nil, err
	}
	return s, nil
}

// makeDataDir creates dir when it is missing and then makes its name
// durable in its parent: a new data directory whose entry a power cut
// took would take every Flushed message with it.
func makeDataDir(fsys FS, dir string) error {
	if _, err := fsys.ReadDir(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ioError("opening data directory", dir, err)
	}
	if err := fsys.MkdirAll(dir, 0o700); err != nil {
		return ioError("creating data directory", dir, err)
	}
	return syncDirOf(fsys, filepath.Dir(filepath.Clean(dir)))
}

// lockDir takes <dir>/LOCK: one store per directory.
func lockDir(fsys FS, dir string) (io.Closer, error) {
	path := filepath.Join(dir, "LOCK")
	lock, err := fsys.Lock(path)
	if errors.Is(err, ErrLocked) {
		return nil, errs.New(errs.KindRuntime, "store: %s is in use by another store (lock %s is held)", dir, path)
	}
	if err != nil {
		return nil, ioError("locking", path, err)
	}
	return lock, nil
}

func (s *Store) queueRoot() string { return filepath.Join(s.dir, "queue") }

// recoverAll empties payload/tmp, recovers each queue directory, counts the
// references of their live messages and then sweeps unreferenced payloads.
func (s *Store) recoverAll() error {
	if err := s.payloads.prepare(); err != nil {
		return err
	}
	if err := s.fs.MkdirAll(s.queueRoot(), 0o700); err != nil {
		return ioError("creating queue directory", s.queueRoot(), err)
	}
	// payload/ and queue/ may be new: make their names durable before any
	// Flushed admission relies on them.
	if err := s.syncDir(s.dir); err != nil {
		return err
	}
	entries, err := s.fs.ReadDir(s.queueRoot())
	if err != nil {
		return ioError("listing", s.queueRoot(), err)
	}
	for _, e := range entries {
		if !e.IsDir() || !isQueueID(e.Name()) {
			continue
		}
		rq, err := recoverQueue(s.fs, filepath.Join(s.queueRoot(), e.Name()), s.payloads)
		if err != nil {
			s.failed[e.Name()] = err
			continue
		}
		for _, m := range rq.payloadMessages() {
			if !m.isInline() {
				s.payloads.retain(m.Digest)
			}
		}
		s.recovered[e.Name()] = rq
	}
	if len(s.failed) > 0 {
		return nil
	}
	// A SETTLE the last process wrote may be only in the page cache (it
	// was killed before an fsync): made durable first, or a power cut
	// after the sweep deleted its body would bring the message back
	// without it.
	for _, rq := range s.recovered {
		if err := rq.syncTail(); err != nil {
			return err
		}
	}
	return s.payloads.sweep()
}

// queueID is the directory name of a queue: hex SHA-256 of its path, since
// paths are opaque bytes that need not be valid file names.
func queueID(path []byte) string {
	sum := sha256.Sum256(path)
	return hex.EncodeToString(sum[:])
}

func isQueueID(name string) bool {
	if len(name) != 64 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

// OpenQueue opens (or creates) the queue for path at durability d and
// returns its live messages in seq order. A queue whose recovery found a
// corrupt store returns that error (wrapping ErrCorrupt, naming file and
// offset); a torn tail was cut silently and shows in Stats().TornTails.
// The returned messages' Meta bytes must not be modified.
func (s *Store) OpenQueue(path []byte, d Durability) (*Queue, []Message, error) {
	if d != Written && d != Flushed {
		return nil, nil, errs.New(errs.KindUnsupported, "store: durability %s needs no store (want written or flushed)", d)
	}
	if len(path) > MaxPathBytes {
		return nil, nil, errs.New(errs.KindInvalidEndpointPath, "store: queue path is %d bytes, over the cap of %d", len(path), MaxPathBytes)
	}
	id := queueID(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, nil, errClosed
	case s.open[id] != nil:
		return nil, nil, errs.New(errs.KindAlreadyRegistered, "store: queue %q is already open", path)
	case s.failed[id] != nil:
		return nil, nil, s.failed[id]
	}
	rq := s.recovered[id]
	if rq == nil {
		var err error
		if rq, err = s.createQueueDir(id); err != nil {
			return nil, nil, err
		}
	}
	if len(rq.unreadable) > 0 && d == Flushed {
		return nil, nil, rq.unreadableError(path)
	}
	j, err := openJournal(s.fs, rq.dir, rq.segs, rq.activeSize, rq.nextSeq, s.opt.SegmentBytes)
	if err != nil {
		return nil, nil, err
	}
	if err := s.dropUnreadable(rq, j, path); err != nil {
		j.close()
		return nil, nil, err
	}
	q := newQueue(s, id, d, j, rq)
	delete(s.recovered, id)
	s.open[id] = q
	msgs := make([]Message, 0, len(rq.live))
	for _, seq := range rq.seqs() {
		msgs = append(msgs, *rq.live[seq])
	}
	return q, msgs, nil
}

// dropUnreadable drops from a Written queue the messages whose payloads an
// OS crash or power loss took (BROKER.md §13.3 step 4 as amended: Written
// never promised more). A SETTLE record for each, fsynced, makes the drop
// final: a later body with the same digest must not bring one back. Each
// is logged with its seq and digest, and counted.
func (s *Store) dropUnreadable(rq *recovered, j *journal, path []byte) error {
	if len(rq.unreadable) == 0 {
		return nil
	}
	var end uint64
	for _, u := range rq.unreadable {
		var err error
		if end, err = j.append(&record{typ: recSettle, seq: u.m.Seq}, rq.nextSeq); err != nil {
			return err
		}
	}
	if err := j.syncTo(end); err != nil {
		return err
	}
	freed := make([][32]byte, 0, len(rq.unreadable))
	for _, u := range rq.unreadable {
		s.opt.Logf("store: queue %q (written): dropped seq %d at recovery: payload %s (sha256 %x) %s; an OS crash or power loss took it",
			path, u.m.Seq, u.path, u.m.Digest, u.problem)
		if s.payloads.release(u.m.Digest) {
			freed = append(freed, u.m.Digest)
		}
	}
	rq.dropped += len(rq.unreadable)
	rq.unreadable = nil
	return s.payloads.removeUnreferenced(s.payloads.marks(freed))
}

// createQueueDir makes the directory of a queue seen for the first time.
func (s *Store) createQueueDir(id string) (*recovered, error) {
	dir := filepath.Join(s.queueRoot(), id)
	if err := s.fs.Mkdir(dir, 0o700); err != nil {
		return nil, ioError("creating queue directory", dir, err)
	}
	if err := s.syncDir(s.queueRoot()); err != nil {
		return nil, err
	}
	return &recovered{dir: dir, live: make(map[uint64]*Message), quarantined: make(map[uint64]*Message), nextSeq: 1}, nil
}

// park is called by Queue.Close: the closed queue's state waits for the next
// OpenQueue of its path, or its failure does.
func (s *Store) park(id string, rq *recovered, closeErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, id)
	if closeErr != nil {
		s.failed[id] = closeErr
		return
	}
	s.recovered[id] = rq
}

// errSettlementsUnsynced says another queue's settlements could not be
// made durable (its journal failed): payloads are then kept, not removed or
// set aside, since a SETTLE of that queue may be undone by a crash. The
// next Open's sweep reclaims them.
var errSettlementsUnsynced = errors.New("store: another queue's settlements are not durable")

// syncSettlements makes the settlements of every open queue durable. It
// comes before a payload no live message names is deleted or set aside:
// its references are counted across queues, so an earlier SETTLE of the
// same body, in this queue or another, may still be only in memory, and a
// crash that undid it would bring back a message without its body. own's
// failure is returned as it is; another queue's is errSettlementsUnsynced
// (that queue hears of it from its next Settle).
func (s *Store) syncSettlements(own *Queue) error {
	s.mu.Lock()
	queues := s.openLocked()
	s.mu.Unlock()
	var unsynced error
	for _, q := range queues {
		if q != own && q.syncSettlements() != nil {
			unsynced = errSettlementsUnsynced
		}
	}
	if err := own.syncSettlements(); err != nil { // last, and even once closing has taken it out of s.open
		return err
	}
	return unsynced
}

// openLocked lists the open queues. The caller holds s.mu.
func (s *Store) openLocked() []*Queue {
	queues := make([]*Queue, 0, len(s.open))
	for _, q := range s.open {
		queues = append(queues, q)
	}
	return queues
}

// Close closes every queue still open and releases the directory lock.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	queues := s.openLocked()
	s.mu.Unlock()
	var first error
	for _, q := range queues {
		if err := q.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := s.lock.Close(); err != nil && first == nil {
		first = ioError("closing lock file in", s.dir, err)
	}
	return first
}
