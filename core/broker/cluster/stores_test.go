package cluster

import (
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// startSolo runs a one-member group on dir's stores and waits until it
// leads.
func startSolo(t *testing.T, dir string, fsm *FSM, bootstrap bool) (*raft.Raft, *GroupStores) {
	t.Helper()
	stores, err := OpenGroupStores(dir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf := raft.DefaultConfig()
	conf.LocalID = "solo"
	conf.LogOutput = io.Discard
	_, trans := raft.NewInmemTransport("solo")
	r, err := raft.NewRaft(conf, fsm, stores.Log, stores.Stable, stores.Snapshots, trans)
	if err != nil {
		t.Fatal(err)
	}
	if bootstrap {
		if err := r.BootstrapCluster(raft.Configuration{Servers: []raft.Server{{ID: "solo", Address: trans.LocalAddr()}}}).Error(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-leading(r):
	case <-time.After(30 * time.Second):
		t.Fatal("the one member never led")
	}
	return r, stores
}

func leading(r *raft.Raft) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for isLeader := range r.LeaderCh() {
			if isLeader {
				close(done)
				return
			}
		}
	}()
	return done
}

func proposeAll(t *testing.T, r *raft.Raft, entries ...Entry) {
	t.Helper()
	for _, e := range entries {
		raw, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(raw, 5*time.Second).Error(); err != nil {
			t.Fatal(err)
		}
	}
}

// A group's state survives a restart from its folder: from the log alone,
// and from a snapshot plus the log after it.
func TestGroupStateSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	r, stores := startSolo(t, dir, NewFSM(), true)
	proposeAll(t, r, admitInline("a"), admitStreamed(5), admitInline("c"), Entry{Kind: EntryDeliver, Seq: 2, Attempt: 2})
	if err := r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	proposeAll(t, r, Entry{Kind: EntrySettle, Seqs: []uint64{1}}, admitInline("d"))
	if err := r.Shutdown().Error(); err != nil {
		t.Fatal(err)
	}
	stores.Close()

	fsm := NewFSM()
	r, stores = startSolo(t, dir, fsm, false)
	defer stores.Close()
	defer r.Shutdown()
	// A leader applies what its log holds once it has committed an entry
	// of its own term: Barrier waits for exactly that.
	if err := r.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	if fsm.Len() != 3 || fsm.NextSeq() != 5 {
		t.Fatalf("after the restart: %d live, next seq %d; want 3 and 5", fsm.Len(), fsm.NextSeq())
	}
	if m, ok := fsm.Live(2); !ok || m.Attempts != 2 {
		t.Fatalf("message 2 after the restart: %+v, %v", m, ok)
	}
	if _, ok := fsm.Live(1); ok {
		t.Fatal("a settled message came back")
	}
}
