package store

import (
	"bytes"
	"io"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// Queue is one persistent queue: its journal and live set. Its methods are
// safe for concurrent use; Admits may run in parallel and share fsyncs.
type Queue struct {
	s   *Store
	id  string
	dur Durability
	j   *journal

	mu         sync.Mutex
	live       map[uint64]*Message
	quarantine map[uint64]*Message // out of live for good, counted; their payloads set aside
	order      []uint64            // live and quarantined seqs in admit order from index head on; settled ones skipped lazily
	head       int
	nextSeq    uint64
	liveBytes  uint64
	cell       checkpoint
	tornTails  int
	dropped    int
	freed      [][32]byte // payloads at zero references awaiting a journal sync
	freedBytes uint64
	closed     bool

	// pending holds the SETTLE and ATTEMPT frames the writer goroutine has
	// not written yet (writer.go); writerErr is its first failure since the
	// last Settle or Attempt reported one.
	pending   []byte
	writerErr error
	houseMu   sync.Mutex    // one housekeeping round at a time
	wake      chan struct{} // capacity 1: "pending or freed has work"
	stop      chan struct{} // closed by Close
	stopped   chan struct{} // closed by the writer when it returns
}

func newQueue(s *Store, id string, d Durability, j *journal, rq *recovered) *Queue {
	q := &Queue{s: s, id: id, dur: d, j: j, live: rq.live, quarantine: rq.quarantined, nextSeq: rq.nextSeq,
		cell: rq.cell, tornTails: rq.tornTails, dropped: rq.dropped}
	q.order = rq.pinned()
	q.wake, q.stop, q.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go q.writeLoop()
	for _, m := range rq.live {
		q.liveBytes += m.BodyLen
	}
	return q
}

// Admit makes b durable at the queue's level and records it. A body of at
// most MaxInlineBodyBytes goes inside its ADMIT_INLINE record; a larger one
// is renamed to its digest (or dropped when an identical body is live:
// dedup) before its ADMIT record is appended. For Flushed the payload, its
// directory and the journal are fsynced. Only then does it return, so the
// caller may certify Stored. Admit consumes b: on error b is aborted.
// Every error means nothing was recorded, except one wrapping
// ErrNotDurable: the record was written but its fsync failed, so the
// message (returned with its seq) may or may not reappear after a crash,
// and the queue refuses further writes.
func (q *Queue) Admit(b *Body, m Meta) (Message, error) {
	if b.q != q {
		b.Abort()
		return Message{}, errs.New(errs.KindRuntime, "store: body was created by another queue")
	}
	if q.isClosed() {
		b.Abort()
		return Message{}, errClosed
	}
	if err := m.validate(); err != nil {
		b.Abort()
		return Message{}, err
	}
	flushed := q.dur == Flushed
	fin, err := b.finish(flushed)
	if err != nil {
		return Message{}, err
	}
	msg := Message{Digest: fin.digest, BodyLen: b.n, Meta: m.clone()}
	rec := record{typ: recAdmit, digest: fin.digest, bodyLen: msg.BodyLen, meta: msg.Meta}
	if fin.inMemory && len(fin.small) <= MaxInlineBodyBytes {
		msg.inline = append(make([]byte, 0, len(fin.small)), fin.small...)
		rec.typ, rec.inline = recAdmitInline, msg.inline
		b.releaseBuf()
	} else {
		err = q.s.payloads.adopt(fin, flushed)
		b.releaseBuf()
		if err != nil {
			return Message{}, err
		}
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		q.dropPayload(&msg)
		return Message{}, errClosed
	}
	msg.Seq = q.nextSeq
	rec.seq = msg.Seq
	end, err := q.j.append(&rec, msg.Seq)
	if err != nil {
		q.mu.Unlock()
		q.dropPayload(&msg)
		return Message{}, err
	}
	q.nextSeq++
	stored := msg
	q.live[msg.Seq] = &stored
	q.order = append(q.order, msg.Seq)
	q.liveBytes += msg.BodyLen
	q.mu.Unlock()
	if flushed {
		if err := q.j.syncTo(end); err != nil {
			return msg, notDurable(msg.Seq, err)
		}
	}
	return msg, nil
}

// dropPayload undoes adopt for a message that was never recorded. Its
// file goes with the next batch of freed payloads, not at once: an earlier
// message with the same body may have been settled without its SETTLE
// being durable yet. An inline body has nothing to undo.
func (q *Queue) dropPayload(m *Message) {
	if !m.isInline() && q.s.payloads.release(m.Digest) {
		q.mu.Lock()
		q.freed = append(q.freed, m.Digest)
		q.freedBytes += m.BodyLen
		q.mu.Unlock()
	}
}

// OpenBody opens the body of a live message for reading: its payload file,
// or a reader over the inline body held in memory.
func (q *Queue) OpenBody(seq uint64) (io.ReadCloser, error) {
	q.mu.Lock()
	m, closed := q.live[seq], q.closed
	q.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if m == nil {
		return nil, q.notLive(seq)
	}
	if m.isInline() {
		return io.NopCloser(bytes.NewReader(m.inline)), nil
	}
	return openPayload(q.s.fs, m, q.s.payloads.path(m.Digest))
}

func (q *Queue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// liveLocked returns the live message seq, or why there is none.
func (q *Queue) liveLocked(seq uint64) (*Message, error) {
	if q.closed {
		return nil, errClosed
	}
	if m := q.live[seq]; m != nil {
		return m, nil
	}
	return nil, q.notLive(seq)
}

func (q *Queue) notLive(seq uint64) error {
	return errs.New(errs.KindRuntime, "store: queue %s has no live message with seq %d", q.id[:12], seq)
}

// lowWaterLocked is the smallest live seq, or nextSeq when nothing is live:
// every seq below it is settled.
func (q *Queue) lowWaterLocked() uint64 {
	for q.head < len(q.order) && q.live[q.order[q.head]] == nil {
		q.head++
	}
	if q.head > 1024 && q.head*2 > len(q.order) {
		q.order = append([]uint64(nil), q.order[q.head:]...)
		q.head = 0
	}
	if q.head < len(q.order) {
		return q.order[q.head]
	}
	return q.nextSeq
}
