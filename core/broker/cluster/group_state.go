package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport/raftlayer"
)

// What a replicated queue's loop needs of its group beyond Propose: to
// hear leadership change, to know the applied state is complete before it
// serves, and to show the group in Stats.

// LeaderCh delivers true when this node comes to lead g and false when it
// stops. It keeps only the latest change (a slow reader sees the last
// value) and has one reader: the queue's loop.
func (g *Group) LeaderCh() <-chan bool { return g.raft.LeaderCh() }

// Barrier waits until every entry appended before it is applied to g's
// FSM. A new leader calls it before building its queue from the FSM, so
// entries of earlier terms it holds are applied (or known lost) first.
func (g *Group) Barrier(ctx context.Context) error {
	timeout := rpcTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	err := g.raft.Barrier(timeout).Error()
	if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
		url, term, _ := g.Leader()
		return &NotLeaderError{Path: g.Path, Leader: url, Term: term}
	}
	return err
}

// Quorum is how many members hold an entry once it is committed, this
// one included: the n of Replicated(n, flushed).
func (g *Group) Quorum() int { return g.node.file.Quorum() }

// Members is the cluster's membership, as the file gives it.
func (g *Group) Members() []Member { return g.node.file.Members }

// GroupStats is one group as this node sees it.
type GroupStats struct {
	// Leader is the leader's client URL with the queue's path; empty while
	// none is known.
	Leader string
	// IsLeader: this node leads the group.
	IsLeader bool
	// State is hashicorp/raft's: Follower, Candidate, Leader or Shutdown.
	State string
	Term  uint64
	// CommitIndex and AppliedIndex are log indexes: committed by the
	// quorum, and applied to this node's FSM.
	CommitIndex, AppliedIndex uint64
	// LastContact is how long ago a follower last heard its leader (0 on
	// the leader; -1 when it never has).
	LastContact time.Duration
}

// Stats reads g's state (hashicorp/raft's Stats; it does not expose the
// leader's per-follower match index, so lag is not shown).
func (g *Group) Stats() GroupStats {
	s := g.raft.Stats()
	u := func(key string) uint64 {
		v, _ := strconv.ParseUint(s[key], 10, 64)
		return v
	}
	url, _, _ := g.Leader()
	out := GroupStats{Leader: url, IsLeader: g.IsLeader(), State: s["state"], Term: u("term"),
		CommitIndex: u("commit_index"), AppliedIndex: u("applied_index"), LastContact: -1}
	switch last := g.raft.LastContact(); {
	case out.IsLeader:
		out.LastContact = 0
	case !last.IsZero():
		out.LastContact = time.Since(last)
	}
	return out
}

// LiveMessages returns the live set in seq order: what a new leader makes
// ready.
func (f *FSM) LiveMessages() []Message {
	f.mu.Lock()
	out := make([]Message, 0, len(f.live))
	for _, m := range f.live {
		out = append(out, *m)
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// TransferLeadership hands g's leadership to another member and waits for
// the handover. A member about to retire calls it, so its queues move
// before it stops serving them. Each other member is tried in turn, those
// this node is connected to first, but none known to have stopped in
// order; one that cannot take it is passed over. When none took it and
// every one was stopping or had stopped (the cluster stopping member by
// member), there is nobody to hand it to: that is no failure, it is logged
// at Debug and the result is nil, and this node keeps the leadership for
// its drain. On a node that does not lead g there is nothing to hand
// over: nil.
func (g *Group) TransferLeadership() error {
	var connected, others []Member
	for _, m := range g.node.file.Members {
		switch {
		case m.Raft == g.node.self.Raft || g.node.port.Stopped(m.Key):
		case g.node.port.Connected(m.Key):
			connected = append(connected, m)
		default:
			others = append(others, m)
		}
	}
	var last error
	for _, m := range append(connected, others...) {
		err := g.transferTo(m)
		if err == nil || !g.IsLeader() {
			// Handed over (perhaps its answer lost), or not this node's
			// to hand over any more.
			return nil
		}
		if !raftlayer.PeerShutDown(err) && !g.node.port.Stopped(m.Key) {
			last = err
		}
		g.node.log.Debug("cluster: a member could not take the leadership", "queue", g.Path, "to", m.Key.String(), "err", err)
	}
	if last != nil {
		return fmt.Errorf("replicated queue %s: no member took the leadership: %w", g.Path, last)
	}
	g.node.log.Debug("cluster: every other member is stopping: this node keeps the leadership", "queue", g.Path)
	return nil
}

// transferTo hands g's leadership to m. hashicorp/raft refuses a transfer
// while an earlier one's RPC is still out (a member out of reach holds it
// up to rpcTimeout after the transfer itself timed out): that is waited
// out, backing off, for as long.
func (g *Group) transferTo(m Member) error {
	backoff := 20 * time.Millisecond
	deadline := time.Now().Add(rpcTimeout)
	for {
		err := g.raft.LeadershipTransferToServer(serverID(m.Key), raft.ServerAddress(m.Raft)).Error()
		if !errors.Is(err, raft.ErrLeadershipTransferInProgress) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-g.node.stop:
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// PatientRaftConfig is hashicorp/raft's defaults with timings twice as
// patient, for clusters that run in one process under the race detector
// on a loaded machine: there a leader starved of CPU for half a second
// (the default lease) steps down mid-test although nothing failed.
func PatientRaftConfig() *raft.Config {
	c := raft.DefaultConfig()
	c.HeartbeatTimeout = 2 * time.Second
	c.ElectionTimeout = 2 * time.Second
	c.LeaderLeaseTimeout = time.Second
	c.MaxAppendEntries = defaultMaxAppendEntries
	return c
}

// leads reports whether the member with key leads g, as far as this
// node's Raft knows (hashicorp notes an AppendEntries' sender as the
// leader before it stores the entries).
func (g *Group) leads(key identity.Fingerprint) bool {
	r := g.started.Load()
	if r == nil {
		return false
	}
	addr, _ := r.LeaderWithID()
	m, known := g.node.byRaft[addr]
	return known && m.Key == key
}
