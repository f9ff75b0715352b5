package cluster

import (
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/broker/store/faultfs"
	"github.com/weida-go/weida/core/identity"
)

// hangBound turns a wait that would last until a dead sender's stream
// deadline (10 s) into a failure; nothing is synchronised on it.
const hangBound = 5 * time.Second

// A leader SIGKILLed while pushing a body to a follower leaves that push
// open until the stream's idle deadline (10 s). The new leader's ADMIT of
// the same body must be stored by fetching it, not by waiting for that
// push: the follower may be the only member left to make a quorum with the
// new leader, which then commits nothing until the push gives up (issue
// 19: 2 of 40 failovers took about 10 s).
func TestAnADMITDoesNotWaitForAPushFromAMemberThatNoLongerLeads(t *testing.T) {
	p := openPayloadsOn(t, faultfs.New(1), true)
	oldLeader, newLeader := testKey(t), testKey(t)
	body := bigBody(21)
	d := sha256.Sum256(body)
	endPush := p.beginReceive(d, oldLeader) // its sender died mid-body
	defer endPush()
	var fetches atomic.Int32
	m := newMemberLog(t, p, func(want [32]byte, _, _ uint64) error {
		fetches.Add(1)
		_, _, err := writeBody(p, body) // what a fetch from the new leader brings
		return err
	})
	m.log.leads = func(k identity.Fingerprint) bool { return k == newLeader }
	admit := streamedAdmitOf(d, body)
	raw, err := admit.Encode()
	if err != nil {
		t.Fatal(err)
	}
	stored := make(chan error, 1)
	go func() { stored <- m.log.StoreLogs([]*raft.Log{{Index: 1, Type: raft.LogCommand, Data: raw}}) }()
	bound := time.NewTimer(hangBound)
	defer bound.Stop()
	select {
	case err := <-stored:
		if err != nil {
			t.Fatal(err)
		}
	case <-bound.C:
		t.Fatalf("StoreLogs still waits after %v for a push from a member that no longer leads", hangBound)
	}
	if n := fetches.Load(); n != 1 {
		t.Fatalf("the body was fetched %d times, want 1", n)
	}
	if got, err := readBody(p, d); err != nil || len(got) != len(body) {
		t.Fatalf("the stored ADMIT's body: %d bytes, %v", len(got), err)
	}
}

func testKey(t *testing.T) identity.Fingerprint {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id.Fingerprint()
}

// A member that stops sending in the middle of a push (SIGKILLed: no
// close, no reset) has the push ended by the receiver once nothing came
// for Raft's heartbeat timeout, not the sender's 10 s idle bound: while
// an ADMIT of that body waits for the push, the receiver's Raft loop waits
// with it and cannot vote (issue 19: the surviving follower sat out 10 s
// of the next election).
func TestAStalledPushEndsAtTheHeartbeatTimeout(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	receiver := tc.nodes[0]
	_, pusher := tc.impostor(t, 1, "/jobs")
	body := bigBody(22)
	s, err := pusher.DialFetch(tc.file.Members[0].Raft, fetchRequestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	header := fetchRequest{push: true, digest: sha256.Sum256(body), length: uint64(len(body))}.encode()
	if _, err := s.Write(append(header, body[:len(body)/2]...)); err != nil {
		t.Fatal(err)
	}
	// The rest never comes. The receiver answers once it gives up.
	stall := receiver.Group("/jobs").transferStall
	s.SetReadDeadline(time.Now().Add(fetchIdleTimeout / 2))
	var status [1]byte
	if _, err := io.ReadFull(s, status[:]); err != nil {
		t.Fatalf("no answer to a stalled push within %v (the receiver should give up after %v): %v", fetchIdleTimeout/2, stall, err)
	}
	if status[0] != pushRefused {
		t.Fatalf("a stalled push was answered %d, want %d (refused)", status[0], pushRefused)
	}
}

// A member asked for a body it deleted, at a log index it has not applied
// yet, waits to apply it before it answers: the SETTLE that freed the body
// may be just behind, and "unknown" from every member makes the asker take
// its store for corrupt.
func TestAMemberBehindTheAskerWaitsToSayABodyIsSettled(t *testing.T) {
	p := openPayloadsOn(t, faultfs.New(1), true)
	m := newMemberLog(t, p, nil)
	body := bigBody(23)
	d := commitBody(t, p, body)
	m.apply(m.mustStore(streamedAdmitOf(d, body))) // seq 1, index 1
	settle := m.mustStore(Entry{Kind: EntrySettle, Seqs: []uint64{1}})
	g := &Group{FSM: m.fsm, bodies: p, node: &Node{stop: make(chan struct{})}, transferStall: time.Minute}
	start := make(chan struct{})
	applied := make(chan struct{})
	go func() {
		<-start
		m.apply(settle) // index 2: the body is freed and deleted
		close(applied)
	}()
	close(start)
	if !g.settledPastSoon(settle.Index, d) {
		t.Fatal("a member behind the asked index answered that the body is not settled")
	}
	<-applied
	g.transferStall = 0 // no wait: this member never applies the next index
	if g.settledPastSoon(settle.Index+1, d) {
		t.Fatal("an index this member never applies was answered settled")
	}
}

// A member whose latest fetch got no answer (a leader SIGKILLed while its
// followers store a batch) is asked last by the fetches after it, leader
// or not; one that answers, even "unknown", keeps its place.
func TestAMemberThatDidNotAnswerAFetchIsAskedLast(t *testing.T) {
	members := []Member{{Raft: "m1"}, {Raft: "m2"}, {Raft: "m3"}}
	var u unansweredFetches
	if got := fetchOrder("m2", "m1", members, u.has); !slices.Equal(got, []string{"m1", "m3"}) {
		t.Fatalf("order %v, want the leader first", got)
	}
	u.note("m1", errors.New("payload fetch: deadline exceeded"))
	if got := fetchOrder("m2", "m1", members, u.has); !slices.Equal(got, []string{"m3", "m1"}) {
		t.Fatalf("order %v after the leader did not answer, want it last", got)
	}
	u.note("m1", errFetchUnknown)
	if got := fetchOrder("m2", "m1", members, u.has); !slices.Equal(got, []string{"m1", "m3"}) {
		t.Fatalf("order %v after the leader answered, want it first again", got)
	}
}
