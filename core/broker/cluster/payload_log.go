package cluster

import (
	"fmt"

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
}

// newBodyLogStore wraps log, holding the bodies of the ADMITs it holds
// already (stored by an earlier run, perhaps never applied). A body one of
// them names and the store lacks is noted missing for the group's repair
// to fetch.
func newBodyLogStore(log raft.LogStore, bodies *Payloads, fetch func([32]byte, uint64) error) (*bodyLogStore, error) {
	s := &bodyLogStore{LogStore: log, bodies: bodies, fetch: fetch}
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

// StoreLogs makes every streamed body the entries name durable here, then
// stores the entries. A body it cannot get fails the call: the leader
// sends the entries again, so nothing is skipped. (The holds of a failed
// call stay until their indexes are stored or cut: the same entries come
// again.)
func (s *bodyLogStore) StoreLogs(logs []*raft.Log) error {
	for _, l := range logs {
		d, length, ok := streamedAdmit(l)
		if !ok {
			continue
		}
		if !s.bodies.hold(l.Index, d) {
			if err := s.fetch(d, length); err != nil {
				return fmt.Errorf("log entry %d: %w", l.Index, err)
			}
			if !s.bodies.hold(l.Index, d) {
				return fmt.Errorf("log entry %d: body %x vanished once fetched", l.Index, d)
			}
		}
	}
	return s.LogStore.StoreLogs(logs)
}

// DeleteRange cuts entries from the log, and their holds with them.
func (s *bodyLogStore) DeleteRange(lo, hi uint64) error {
	err := s.LogStore.DeleteRange(lo, hi)
	s.bodies.releaseHolds(lo, hi)
	return err
}
