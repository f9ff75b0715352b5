package cluster

import (
	"crypto/sha256"
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
