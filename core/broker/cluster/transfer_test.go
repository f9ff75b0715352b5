package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// While a leadership transfer runs, hashicorp/raft refuses every Apply;
// one toward a member that is down fails, and this node goes on leading.
// A proposal made meanwhile waits the transfer out and commits: it is not
// answered NOT_LEADER by a node that is and stays the leader (a queue that
// took that answer for a lost leadership served nothing for the rest of
// its term).
func TestAProposalWaitsOutAFailedLeadershipTransfer(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	g := leader.Group("/jobs")
	var down *Node
	for _, n := range tc.nodes {
		if n != leader {
			down = n
			break
		}
	}
	down.Close()

	transfer := make(chan error, 1)
	go func() {
		transfer <- g.raft.LeadershipTransferToServer(serverID(down.self.Key), raft.ServerAddress(down.self.Raft)).Error()
	}()
	deadline := time.After(30 * time.Second)
	for !errors.Is(g.raft.Barrier(time.Second).Error(), raft.ErrLeadershipTransferInProgress) {
		select {
		case err := <-transfer:
			t.Fatalf("the transfer to a member that is down ended before it was seen running: %v", err)
		case <-deadline:
			t.Fatal("the transfer was never seen running")
		default:
		}
	}
	res, err := g.Propose(context.Background(), admitInline("during the transfer"))
	if err != nil {
		t.Fatalf("a proposal during a failing transfer: %v, want it committed once the transfer failed", err)
	}
	if res != (AdmitResult{Seq: 1}) || !g.IsLeader() {
		t.Fatalf("committed %v; still leading: %v", res, g.IsLeader())
	}
	if err := <-transfer; err == nil {
		t.Fatal("the transfer to a member that is down succeeded")
	}
}
