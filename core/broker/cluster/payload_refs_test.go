package cluster

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/broker/store/faultfs"
)

// memberLog is one member's log and state machine over a payload store,
// without Raft: entries are stored, then applied, as a follower does.
type memberLog struct {
	t     *testing.T
	log   *bodyLogStore
	fsm   *FSM
	index uint64
}

func newMemberLog(t *testing.T, p *Payloads, fetch func(d [32]byte, length, index uint64) error) *memberLog {
	t.Helper()
	if fetch == nil {
		fetch = func(d [32]byte, _, _ uint64) error { return fmt.Errorf("no member to fetch %x from", d) }
	}
	ls, err := newBodyLogStore(raft.NewInmemStore(), p, fetch, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFSM()
	f.bodies = p
	return &memberLog{t: t, log: ls, fsm: f}
}

// store appends e to the log, as StoreLogs does for an AppendEntries.
func (m *memberLog) store(e Entry) (*raft.Log, error) {
	raw, err := e.Encode()
	if err != nil {
		m.t.Fatal(err)
	}
	l := &raft.Log{Index: m.index + 1, Type: raft.LogCommand, Data: raw}
	if err := m.log.StoreLogs([]*raft.Log{l}); err != nil {
		return nil, err
	}
	m.index++
	return l, nil
}

func (m *memberLog) mustStore(e Entry) *raft.Log {
	m.t.Helper()
	l, err := m.store(e)
	if err != nil {
		m.t.Fatal(err)
	}
	return l
}

func (m *memberLog) apply(l *raft.Log) any { return m.fsm.Apply(l) }

func streamedAdmitOf(d [32]byte, body []byte) Entry {
	return Entry{Kind: EntryAdmit, Digest: d[:], Length: uint64(len(body))}
}

// A body is deleted only once no live message refers to it, after the
// SETTLE that freed it is applied, and never while an ADMIT committed for
// it or stored in the log is still to be applied.
func TestSettledBodiesAreDeletedOnlyWhenNothingCanNameThem(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	m := newMemberLog(t, p, nil)
	body := bigBody(6)
	d := commitBody(t, p, body)
	m.apply(m.mustStore(streamedAdmitOf(d, body))) // seq 1
	// The same bytes for a second message: committed, then stored after
	// the first one's SETTLE, which is applied first.
	commitBody(t, p, body)
	settle1 := m.mustStore(Entry{Kind: EntrySettle, Seqs: []uint64{1}})
	m.apply(settle1)
	if !p.Has(d) {
		t.Fatal("settling the first message deleted the body a committed body's ADMIT will name")
	}
	admit2 := m.mustStore(streamedAdmitOf(d, body))
	// Stored, not yet applied, behind another SETTLE of the same body.
	commitBody(t, p, body)
	admit3 := m.mustStore(streamedAdmitOf(d, body))
	m.apply(admit2) // seq 2
	m.apply(m.mustStore(Entry{Kind: EntrySettle, Seqs: []uint64{2}}))
	if !p.Has(d) {
		t.Fatal("a SETTLE deleted the body of an ADMIT stored and not yet applied")
	}
	m.apply(admit3) // seq 3
	if !p.Has(d) {
		t.Fatal("the body went before its last message was settled")
	}
	m.apply(m.mustStore(Entry{Kind: EntrySettle, Seqs: []uint64{3}}))
	if p.Has(d) {
		t.Fatal("a body no live message refers to was kept")
	}

	// Release lets go of a body whose ADMIT never entered the log.
	d = commitBody(t, p, bigBody(7))
	p.Release(d)
	if p.Has(d) {
		t.Fatal("a released body nothing names was kept")
	}
	// An ADMIT cut from the log (a divergent suffix) lets go of its body.
	d = commitBody(t, p, bigBody(8))
	l := m.mustStore(streamedAdmitOf(d, bigBody(8)))
	if err := m.log.DeleteRange(l.Index, l.Index); err != nil {
		t.Fatal(err)
	}
	if p.Has(d) {
		t.Fatal("the body of an ADMIT cut from the log was kept")
	}
}

// A member stores an ADMIT only with its body: one it lacks it fetches
// first, and when the fetch fails the entry is not stored.
func TestAnADMITIsStoredOnlyWithItsBody(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	body := bigBody(10)
	d := sha256.Sum256(body)
	var fetches int
	reachable := false
	m := newMemberLog(t, p, func(want [32]byte, length, _ uint64) error {
		fetches++
		if want != d || length != uint64(len(body)) {
			t.Errorf("fetch of %x (%d bytes), want %x (%d)", want, length, d, len(body))
		}
		if !reachable {
			return errors.New("the leader is unreachable")
		}
		_, _, err := writeBody(p, body)
		return err
	})
	if _, err := m.store(streamedAdmitOf(d, body)); err == nil {
		t.Fatal("an ADMIT was stored while its body could not be fetched")
	}
	if last, _ := m.log.LastIndex(); last != 0 {
		t.Fatalf("the failed StoreLogs left index %d in the log", last)
	}
	reachable = true
	l := m.mustStore(streamedAdmitOf(d, body))
	if fetches != 2 || !p.Has(d) || !disk.Durable(p.path(d)) {
		t.Fatalf("after %d fetches the body is here: %v, durable: %v", fetches, p.Has(d), disk.Durable(p.path(d)))
	}
	// The fetch's own pin became the entry's hold: applied and settled, the
	// body goes.
	m.apply(l)
	m.apply(m.mustStore(Entry{Kind: EntrySettle, Seqs: []uint64{1}}))
	if p.Has(d) {
		t.Fatal("a fetched body outlived its only message")
	}
}

// A Commit whose ADMIT never reaches the log (a proposal lost with its
// leader) pins its body only for pinTTL; a live body stays.
func TestAPinOutlivingItsTTLLetsGo(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	m := newMemberLog(t, p, nil)
	live := commitBody(t, p, bigBody(30))
	m.apply(m.mustStore(streamedAdmitOf(live, bigBody(30))))
	lost := commitBody(t, p, bigBody(31))
	p.expirePins(time.Now().Add(-pinTTL))
	if !p.Has(lost) {
		t.Fatal("a fresh pin expired")
	}
	p.expirePins(time.Now().Add(time.Second))
	if p.Has(lost) || !p.Has(live) {
		t.Fatalf("after the pins expired: the unproposed body is here: %v, the live one: %v", p.Has(lost), p.Has(live))
	}
}

// One StoreLogs fetches each body its entries lack once, however many
// entries name it, and stores them all.
func TestABatchFetchesEachBodyOnce(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	bodies := map[[32]byte][]byte{}
	for i := range 3 {
		bodies[sha256.Sum256(bigBody(40+i))] = bigBody(40 + i)
	}
	var mu sync.Mutex
	fetches := map[[32]byte]int{}
	m := newMemberLog(t, p, func(d [32]byte, _, _ uint64) error {
		mu.Lock()
		fetches[d]++
		mu.Unlock()
		_, _, err := writeBody(p, bodies[d])
		return err
	})
	var logs []*raft.Log
	for i := range 6 {
		body := bigBody(40 + i%3)
		e := streamedAdmitOf(sha256.Sum256(body), body)
		raw, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: raw})
	}
	if err := m.log.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
	for d := range bodies {
		if fetches[d] != 1 || !p.Has(d) {
			t.Fatalf("body %x: fetched %d times, here: %v", d[:4], fetches[d], p.Has(d))
		}
	}
	if last, _ := m.log.LastIndex(); last != 6 {
		t.Fatalf("the log ends at %d, want 6", last)
	}
}

// A flushed member acknowledges an ADMIT only with its body durable, even
// when the body was already there from before a crash that came before
// its fsync.
func TestAnADMITMakesABodyFoundInPlaceDurable(t *testing.T) {
	disk := faultfs.New(1)
	p := openPayloadsOn(t, disk, true)
	body := bigBody(50)
	d := sha256.Sum256(body)
	f, err := disk.FS().OpenFile(p.path(d), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(body)
	f.Close()
	if disk.Durable(p.path(d)) {
		t.Fatal("the test's body is durable before the ADMIT")
	}
	m := newMemberLog(t, p, nil)
	m.mustStore(streamedAdmitOf(d, body))
	if !disk.Durable(p.path(d)) {
		t.Fatal("an ADMIT was stored while its body was not durable")
	}
}
