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

// raftMembers makes n members on loopback: each an identity and a UDP
// socket for its Raft port, the fingerprint each address must prove, and
// the Raft servers they make (ID the fingerprint in hex).
func raftMembers(t *testing.T, n int) ([]*identity.Identity, []net.PacketConn, map[string]identity.Fingerprint, []raft.Server) {
	t.Helper()
	ids := make([]*identity.Identity, n)
	pcs := make([]net.PacketConn, n)
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
		fp := ids[i].Fingerprint()
		members[addr] = fp
		servers = append(servers, raft.Server{ID: raft.ServerID(hex.EncodeToString(fp[:])), Address: raft.ServerAddress(addr)})
	}
	return ids, pcs, members, servers
}

// Three hashicorp/raft nodes replicate over the QUIC Raft port: a leader
// is elected and every node applies the leader's entries in order.
func TestRaftReplicatesOverTheQUICPort(t *testing.T) {
	const nodes, entries = 3, 50
	ids, pcs, members, servers := raftMembers(t, nodes)
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

// flakyFollower answers Raft RPCs for a member that is no raft at all: it
// grants every vote, acknowledges heartbeats, and refuses every other
// append that carries entries (Success false), as a follower whose log
// disagrees does, so the leader keeps leaving and re-entering pipelined
// replication.
func flakyFollower(trans *raft.NetworkTransport, stop <-chan struct{}) {
	var lastLog uint64
	refuse := false
	for {
		select {
		case <-stop:
			return
		case rpc := <-trans.Consumer():
			switch req := rpc.Command.(type) {
			case *raft.RequestPreVoteRequest:
				rpc.Respond(&raft.RequestPreVoteResponse{Term: req.Term, Granted: true}, nil)
			case *raft.RequestVoteRequest:
				rpc.Respond(&raft.RequestVoteResponse{Term: req.Term, Granted: true}, nil)
			case *raft.AppendEntriesRequest:
				resp := &raft.AppendEntriesResponse{Term: req.Term, LastLog: lastLog, Success: true, NoRetryBackoff: true}
				if len(req.Entries) > 0 {
					if refuse || req.PrevLogEntry > lastLog {
						resp.Success = false
					} else {
						lastLog = req.Entries[len(req.Entries)-1].Index
						resp.LastLog = lastLog
					}
					refuse = !refuse
				}
				rpc.Respond(resp, nil)
			default:
				rpc.Respond(nil, raft.ErrUnsupportedProtocol)
			}
		}
	}
}

// A leader whose follower refuses appends now and then must still shut
// down. hashicorp/raft v1.7.3's pipelined replication can deadlock there:
// a refusal ends its response decoder, one more pipelined send can then
// wait forever for a decoder that is gone, and Shutdown waits for that
// send (it hung CI's broker tests). Transport turns pipelining off.
func TestRaftLeaderShutsDownAfterAFollowerRefusedAppends(t *testing.T) {
	ids, pcs, members, servers := raftMembers(t, 2)
	transports := make([]*raft.NetworkTransport, 2)
	for i := range transports {
		port, err := raftlayer.Serve(pcs[i], raftlayer.Config{Identity: ids[i], Members: members, Digest: [32]byte{1}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { port.Close() })
		g, err := port.Group(raftlayer.GroupID{0xAB})
		if err != nil {
			t.Fatal(err)
		}
		transports[i] = Transport(g, 2, 5*time.Second, nil)
	}
	stop := make(chan struct{})
	defer close(stop)
	go flakyFollower(transports[1], stop)

	conf := raft.DefaultConfig()
	conf.LocalID = servers[0].ID
	conf.LogOutput = io.Discard
	conf.HeartbeatTimeout, conf.ElectionTimeout = 100*time.Millisecond, 100*time.Millisecond
	conf.LeaderLeaseTimeout, conf.CommitTimeout = 50*time.Millisecond, time.Millisecond
	store := raft.NewInmemStore()
	leader, err := raft.NewRaft(conf, &logFSM{applied: make(chan struct{}, 1<<16)}, store, store, raft.NewInmemSnapshotStore(), transports[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := leader.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-leaderElected(leader):
	case <-time.After(30 * time.Second):
		t.Fatal("no leader elected in 30 s")
	}
	// Appends the follower refuses every other time, from appliers enough
	// that one is always waiting: each refusal while more wait is a chance
	// for the pipeline's deadlock. Once it struck, nothing commits; on this
	// machine it struck within the first seconds of every run before the fix.
	var appliers sync.WaitGroup
	until := time.Now().Add(5 * time.Second)
	for range 8 {
		appliers.Go(func() {
			for time.Now().Before(until) {
				if err := leader.Apply([]byte("e"), 500*time.Millisecond).Error(); err != nil {
					return
				}
			}
		})
	}
	applied := make(chan struct{})
	go func() {
		appliers.Wait()
		close(applied)
	}()
	select {
	case <-applied:
	case <-time.After(time.Until(until) + 20*time.Second):
		// An Apply's timeout bounds only its queueing: one stays unanswered
		// while nothing is replicated.
		t.Fatal("replication to the refusing follower stopped: appends were never committed")
	}
	shut := make(chan error, 1)
	go func() { shut <- leader.Shutdown().Error() }()
	select {
	case <-shut:
	case <-time.After(20 * time.Second):
		t.Fatal("the leader's Shutdown hung in its replication to the refusing follower")
	}
}

// leaderElected is closed once r leads.
func leaderElected(r *raft.Raft) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for isLeader := range r.LeaderCh() {
			if isLeader {
				return
			}
		}
	}()
	return done
}
