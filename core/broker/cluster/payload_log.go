package cluster

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/identity"
)

// bodyLogStore is a group's Raft log as the payload store needs it: an
// ADMIT naming a streamed body is stored (and so acknowledged to the
// leader) only once that body is durable here, fetched from another
// member when it is not. That is what makes an ADMIT committed by a
// quorum a body held by a quorum. Every stored ADMIT holds its body until
// it is applied or cut from the log.
type bodyLogStore struct {
	raft.LogStore
	bodies *Payloads
	// fetch brings a body, needed by the state at a log index, into the
	// payload store, committed; or says it is settled from that index on
	// (errBodySettled); or fails.
	fetch func(d [32]byte, length, index uint64) error
	// leads reports whether a member leads the group now: only its push
	// of a body is waited for (nil: anyone's).
	leads func(member identity.Fingerprint) bool
	// stop ends a wait for a push being received.
	stop <-chan struct{}
}

// newBodyLogStore wraps log, holding the bodies of the ADMITs it holds
// already (stored by an earlier run, perhaps never applied). A body one of
// them names and the store lacks is noted missing for the group's repair
// to fetch. A push being received is waited for only when leads says its
// sender leads the group (nil: whoever sends it).
func newBodyLogStore(log raft.LogStore, bodies *Payloads, fetch func(d [32]byte, length, index uint64) error,
	leads func(identity.Fingerprint) bool, stop <-chan struct{}) (*bodyLogStore, error) {
	s := &bodyLogStore{LogStore: log, bodies: bodies, fetch: fetch, leads: leads, stop: stop}
	first, err := log.FirstIndex()
	if err != nil {
		return nil, fmt.Errorf("raft log: %w", err)
	}
	last, err := log.LastIndex()
	if err != nil {
		return nil, fmt.Errorf("raft log: %w", err)
	}
	for i := first; first != 0 && i <= last; i++ {
		var l raft.Log
		if err := log.GetLog(i, &l); err != nil {
			return nil, fmt.Errorf("raft log: entry %d of %d to %d: %w", i, first, last, err)
		}
		if d, length, ok := streamedAdmit(&l); ok {
			bodies.holdStored(i, d, length)
		}
	}
	return s, nil
}

// streamedAdmit reports the body an entry names when it is an ADMIT of a
// streamed body. A malformed entry names none (the FSM refuses it).
func streamedAdmit(l *raft.Log) (digest [32]byte, length uint64, ok bool) {
	if l.Type != raft.LogCommand {
		return digest, 0, false
	}
	if k, known := peekKind(l.Data); known && k != EntryAdmit {
		return digest, 0, false // not decoded twice (the FSM decodes it)
	}
	e, err := DecodeEntry(l.Data)
	if err != nil || e.Kind != EntryAdmit || e.Length <= MaxInlineBody {
		return digest, 0, false
	}
	copy(digest[:], e.Digest)
	return digest, e.Length, true
}

// StoreLog stores one entry (see StoreLogs).
func (s *bodyLogStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// maxParallelFetches bounds the bodies one StoreLogs fetches at once.
const maxParallelFetches = 8

// StoreLogs makes every streamed body the entries name durable here, then
// stores the entries. A body the leader is pushing here is waited for;
// bodies it still lacks are fetched in parallel. A body another member says is
// settled from its entry's index on is not needed: the entry is stored
// without it (its SETTLE is committed and comes after it). A body it
// cannot get fails the call: the leader sends the entries again, so
// nothing is skipped. (The holds of a failed call stay until their
// indexes are stored or cut: the same entries come again.)
func (s *bodyLogStore) StoreLogs(logs []*raft.Log) error {
	type lacking struct {
		index  uint64
		digest [32]byte
	}
	var missing []lacking
	want := map[[32]byte]wantedBody{}
	for _, l := range logs {
		d, length, ok := streamedAdmit(l)
		switch {
		case !ok:
		case !s.bodies.hold(l.Index, d):
			missing = append(missing, lacking{l.Index, d})
			// The latest ADMIT of d asks: settled past it, every one of
			// them is.
			want[d] = wantedBody{length: length, index: max(want[d].index, l.Index)}
		default:
			// Here already, but perhaps from before a crash that came
			// before its fsync.
			if err := s.bodies.makeDurable(d, false); err != nil {
				return fmt.Errorf("log entry %d: %w", l.Index, err)
			}
		}
	}
	for d := range want {
		s.bodies.awaitReceiving(d, s.leads, s.stop)
		if s.bodies.Has(d) {
			delete(want, d)
		}
	}
	settled, err := s.fetchAll(want)
	if err != nil {
		return err
	}
	for _, m := range missing {
		if !settled[m.digest] && !s.bodies.hold(m.index, m.digest) {
			return fmt.Errorf("log entry %d: body %x vanished once fetched", m.index, m.digest)
		}
	}
	return s.LogStore.StoreLogs(logs)
}

// wantedBody is a body StoreLogs lacks: its length, and the log index of
// the latest entry naming it.
type wantedBody struct{ length, index uint64 }

// fetchAll fetches the bodies, a few at a time, and returns those found
// settled and the first failure.
func (s *bodyLogStore) fetchAll(want map[[32]byte]wantedBody) (settled map[[32]byte]bool, first error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	settled = map[[32]byte]bool{}
	slots := make(chan struct{}, maxParallelFetches)
	for d, w := range want {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			err := s.fetch(d, w.length, w.index)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, errBodySettled):
				settled[d] = true
			case err != nil && first == nil:
				first = err
			}
		}()
	}
	wg.Wait()
	return settled, first
}

// DeleteRange cuts entries from the log, and their holds with them.
func (s *bodyLogStore) DeleteRange(lo, hi uint64) error {
	err := s.LogStore.DeleteRange(lo, hi)
	s.bodies.releaseHolds(lo, hi)
	return err
}
