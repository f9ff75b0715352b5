package cluster

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"
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
	// fetch brings a body into the payload store, committed, or fails.
	fetch func(d [32]byte, length uint64) error
	// stop ends a wait for a push being received.
	stop <-chan struct{}
}

// newBodyLogStore wraps log, holding the bodies of the ADMITs it holds
// already (stored by an earlier run, perhaps never applied). A body one of
// them names and the store lacks is noted missing for the group's repair
// to fetch.
func newBodyLogStore(log raft.LogStore, bodies *Payloads, fetch func([32]byte, uint64) error, stop <-chan struct{}) (*bodyLogStore, error) {
	s := &bodyLogStore{LogStore: log, bodies: bodies, fetch: fetch, stop: stop}
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
// stores the entries. A body being pushed here is waited for; bodies it
// still lacks are fetched in parallel. A body it
// cannot get fails the call: the leader sends the entries again, so
// nothing is skipped. (The holds of a failed call stay until their
// indexes are stored or cut: the same entries come again.)
func (s *bodyLogStore) StoreLogs(logs []*raft.Log) error {
	type lacking struct {
		index  uint64
		digest [32]byte
	}
	var missing []lacking
	want := map[[32]byte]uint64{}
	for _, l := range logs {
		d, length, ok := streamedAdmit(l)
		switch {
		case !ok:
		case !s.bodies.hold(l.Index, d):
			missing = append(missing, lacking{l.Index, d})
			want[d] = length
		default:
			// Here already, but perhaps from before a crash that came
			// before its fsync.
			if err := s.bodies.makeDurable(d, false); err != nil {
				return fmt.Errorf("log entry %d: %w", l.Index, err)
			}
		}
	}
	for d := range want {
		s.bodies.awaitReceiving(d, s.stop)
		if s.bodies.Has(d) {
			delete(want, d)
		}
	}
	if err := s.fetchAll(want); err != nil {
		return err
	}
	for _, m := range missing {
		if !s.bodies.hold(m.index, m.digest) {
			return fmt.Errorf("log entry %d: body %x vanished once fetched", m.index, m.digest)
		}
	}
	return s.LogStore.StoreLogs(logs)
}

// fetchAll fetches the bodies (digest → length), a few at a time, and
// returns the first failure.
func (s *bodyLogStore) fetchAll(want map[[32]byte]uint64) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	slots := make(chan struct{}, maxParallelFetches)
	for d, length := range want {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := s.fetch(d, length); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// DeleteRange cuts entries from the log, and their holds with them.
func (s *bodyLogStore) DeleteRange(lo, hi uint64) error {
	err := s.LogStore.DeleteRange(lo, hi)
	s.bodies.releaseHolds(lo, hi)
	return err
}
