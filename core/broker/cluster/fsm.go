package cluster

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
)

// Message is one live message of a replicated queue, as every member holds
// it once its ADMIT is applied.
type Message struct {
	Seq                                         uint64
	Digest                                      [32]byte
	Length                                      uint64
	Topic, ContentType, Traceparent, Tracestate *string
	// Body is the body when it travelled in the log (Length <= 4 KiB);
	// larger bodies are in the member's payload store, by Digest.
	Body []byte
	// Attempts is the highest delivery attempt committed for it: it may
	// over-count deliveries a deposed leader never wrote, never under-count.
	Attempts uint64
}

// Inline reports whether the body travelled in the log.
func (m *Message) Inline() bool { return m.Length <= MaxInlineBody }

// AdmitResult is what applying an ADMIT answers the proposer: the seq the
// log gave the message.
type AdmitResult struct{ Seq uint64 }

// BatchResult is what applying an EntryBatch answers: what each of its
// entries answered, in order (an AdmitResult for an ADMIT, nil for a
// DELIVER).
type BatchResult []any

// SettleResult is what applying a SETTLE answers: how many of its seqs were
// live, and the payload digests no live message refers to any more (the
// member may delete those bodies).
type SettleResult struct {
	Settled int
	Freed   [][32]byte
}

// FSM is a replicated queue's state machine: the live set and the payload
// references, built by applying the log in order. Every member applies the
// same entries and so holds the same state; seqs are assigned here, at
// apply, so they agree too.
type FSM struct {
	mu      sync.Mutex
	nextSeq uint64
	live    map[uint64]*Message
	refs    map[[32]byte]int // streamed bodies' references
	applied uint64           // entries applied, malformed ones included
	// lastIndex is the log index of the latest entry applied since the
	// latest restore (0 until one is: a snapshot's index is not known here).
	lastIndex uint64
	changed   chan struct{} // closed and replaced at each apply
	// bodies, when set, hears which streamed bodies ADMITs took up and
	// SETTLEs freed, at apply, so the member's payload store follows.
	bodies *Payloads
}

// NewFSM returns the state of an empty queue.
func NewFSM() *FSM {
	return &FSM{nextSeq: 1, live: make(map[uint64]*Message), refs: make(map[[32]byte]int), changed: make(chan struct{})}
}

// Changed returns a channel closed at the next apply, and the number of
// entries applied so far: a loop that acts on applied state waits on it
// instead of polling.
func (f *FSM) Changed() (<-chan struct{}, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed, f.applied
}

// noteAppliedLocked wakes everyone waiting on Changed.
func (f *FSM) noteAppliedLocked() {
	f.applied++
	close(f.changed)
	f.changed = make(chan struct{})
}

// Apply applies one committed entry. A malformed entry (none a correct
// leader proposes) answers an error value and changes nothing.
func (f *FSM) Apply(l *raft.Log) any {
	e, err := DecodeEntry(l.Data)
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.noteAppliedLocked()
	f.lastIndex = max(f.lastIndex, l.Index)
	if err != nil {
		return fmt.Errorf("log index %d: %w", l.Index, err)
	}
	return f.applyLocked(l.Index, e)
}

func (f *FSM) applyLocked(index uint64, e *Entry) any {
	switch e.Kind {
	case EntryAdmit:
		m := &Message{Seq: f.nextSeq, Length: e.Length, Topic: e.Topic, ContentType: e.ContentType,
			Traceparent: e.Traceparent, Tracestate: e.Tracestate, Body: e.Body}
		copy(m.Digest[:], e.Digest)
		f.nextSeq++
		f.live[m.Seq] = m
		if !m.Inline() {
			f.refs[m.Digest]++
			if f.bodies != nil {
				f.bodies.admitted(index, m.Digest)
			}
		}
		return AdmitResult{Seq: m.Seq}
	case EntryBatch:
		res := make(BatchResult, len(e.Batch))
		for i := range e.Batch {
			res[i] = f.applyLocked(index, &e.Batch[i])
		}
		return res
	case EntryDeliver:
		// A delivery of a message settled meanwhile changes nothing; a
		// lower attempt than one committed never lowers the count.
		if m := f.live[e.Seq]; m != nil && e.Attempt > m.Attempts {
			m.Attempts = e.Attempt
		}
		return nil
	default: // EntrySettle: DecodeEntry admits no other kind
		var res SettleResult
		for _, seq := range e.Seqs {
			m := f.live[seq]
			if m == nil {
				continue
			}
			delete(f.live, seq)
			res.Settled++
			if m.Inline() {
				continue
			}
			if f.refs[m.Digest]--; f.refs[m.Digest] == 0 {
				delete(f.refs, m.Digest)
				res.Freed = append(res.Freed, m.Digest)
			}
		}
		if f.bodies != nil && len(res.Freed) > 0 {
			// Applied, so no member can need the bodies for this SETTLE's
			// messages again; a pinned one awaits its own ADMIT.
			f.bodies.freed(res.Freed)
		}
		return res
	}
}

// Live returns a copy of the live message seq, or false.
func (f *FSM) Live(seq uint64) (Message, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.live[seq]
	if !ok {
		return Message{}, false
	}
	return *m, true
}

// Len is the number of live messages.
func (f *FSM) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.live)
}

// NextSeq is the seq the next ADMIT will get.
func (f *FSM) NextSeq() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nextSeq
}

// References reports how many live messages refer to a streamed body.
func (f *FSM) References(digest [32]byte) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refs[digest]
}

// settledPast reports whether this state is past log index (not 0) and no
// live message refers to streamed body d: every message with d admitted
// up to index was settled by a committed entry, so no member's state from
// index on needs d.
func (f *FSM) settledPast(index uint64, d [32]byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return index != 0 && f.lastIndex >= index && f.refs[d] == 0
}

// appliedIndex is the log index of the latest entry applied since the
// latest restore; 0 when none was.
func (f *FSM) appliedIndex() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastIndex
}
