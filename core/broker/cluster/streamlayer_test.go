package cluster

import (
	"encoding/hex"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport/raftlayer"
)

// logFSM records every applied entry, in order.
type logFSM struct {
	mu      sync.Mutex
	entries []string
	applied chan struct{} // one token per entry
}

func (f *logFSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	f.entries = append(f.entries, string(l.Data))
	f.mu.Unlock()
	f.applied <- struct{}{}
	return nil
}

func (f *logFSM) Snapshot() (raft.FSMSnapshot, error) { return nil, raft.ErrNothingNewToSnapshot }
func (f *logFSM) Restore(io.ReadCloser) error         { return nil }

// Three hashicorp/raft nodes replicate over the QUIC Raft port: a leader
// is elected and every node applies the leader's entries in order.
func TestRaftReplicatesOverTheQUICPort(t *testing.T) {
	const nodes, entries = 3, 50
	ids := make([]*identity.Identity, nodes)
	pcs := make([]net.PacketConn, nodes)
	members := map[string]identity.Fingerprint{}
	var servers []raft.Server
	for i := range ids {
		var err error
		if ids[i], err = identity.Generate(); err != nil {
			t.Fatal(err)
		}
		if pcs[i], err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		addr := pcs[i].LocalAddr().String()
		members[addr] = ids[i].Fingerprint()
		fp := ids[i].Fingerprint()
		servers = append(servers, raft.Server{ID: raft.ServerID(hex.EncodeToString(fp[:])), Address: raft.ServerAddress(addr)})
	}
	rafts := make([]*raft.Raft, nodes)
	fsms := make([]*logFSM, nodes)
	leaders := make(chan raft.Observation, 16)
	for i := range rafts {
		port, err := raftlayer.Serve(pcs[i], raftlayer.Config{Identity: ids[i], Members: members, Digest: [32]byte{1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { port.Close() })
		g, err := port.Group(raftlayer.GroupID{0xAA})
		if err != nil {
			t.Fatal(err)
		}
		conf := raft.DefaultConfig()
		conf.LocalID = servers[i].ID
		conf.LogOutput = io.Discard
		fsms[i] = &logFSM{applied: make(chan struct{}, entries)}
		store := raft.NewInmemStore()
		rafts[i], err = raft.NewRaft(conf, fsms[i], store, store, raft.NewInmemSnapshotStore(), Transport(g, 2, 5*time.Second, nil))
		if err != nil {
			t.Fatal(err)
		}
		rafts[i].RegisterObserver(raft.NewObserver(leaders, false, func(o *raft.Observation) bool {
			_, ok := o.Data.(raft.LeaderObservation)
			return ok
		}))
		t.Cleanup(func() { rafts[i].Shutdown().Error() })
	}
	if err := rafts[0].BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil {
		t.Fatal(err)
	}
	var leader *raft.Raft
	for leader == nil {
		select {
		case <-leaders:
			for _, r := range rafts {
				if r.State() == raft.Leader {
					leader = r
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no leader elected in 30 s")
		}
	}
	for i := range entries {
		if err := leader.Apply([]byte{byte(i)}, 5*time.Second).Error(); err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
	}
	for i, f := range fsms {
		for range entries {
			select {
			case <-f.applied:
			case <-time.After(30 * time.Second):
				t.Fatalf("node %d applied %d of %d entries", i, len(f.entries), entries)
			}
		}
		f.mu.Lock()
		for j, e := range f.entries {
			if e != string([]byte{byte(j)}) {
				t.Fatalf("node %d applied %q as entry %d", i, e, j)
			}
		}
		f.mu.Unlock()
	}
}
