package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/identity"
)

type testCluster struct {
	file  *File
	ids   []*identity.Identity
	nodes []*Node
}

// startCluster runs n members in this process, each with its own data
// folder, serving the given queue paths (flushed).
func startCluster(t *testing.T, n int, paths ...string) *testCluster {
	t.Helper()
	tc := &testCluster{}
	pcs := make([]net.PacketConn, n)
	var members []string
	for i := range n {
		id, err := identity.Generate()
		if err != nil {
			t.Fatal(err)
		}
		tc.ids = append(tc.ids, id)
		if pcs[i], err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		members = append(members, fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:%d", "raft": %q}`,
			id.Fingerprint(), 7000+i, pcs[i].LocalAddr().String()))
	}
	var queues []string
	for _, p := range paths {
		queues = append(queues, fmt.Sprintf(`{"path": %q, "durability": "flushed"}`, p))
	}
	file, err := Parse([]byte(fileOf(members, "["+strings.Join(queues, ",")+"]")))
	if err != nil {
		t.Fatal(err)
	}
	tc.file = file
	for i := range n {
		node, err := StartNode(NodeConfig{File: file, Identity: tc.ids[i], DataDir: t.TempDir(), RaftConn: pcs[i]})
		if err != nil {
			t.Fatal(err)
		}
		tc.nodes = append(tc.nodes, node)
		t.Cleanup(node.Close)
	}
	return tc
}

// waitFor re-checks cond at every leader observation of any group until it
// holds, failing after the deadline.
func (tc *testCluster) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	changes := make(chan raft.Observation, 64)
	for _, n := range tc.nodes {
		for _, g := range n.order {
			obs := raft.NewObserver(changes, false, nil)
			g.raft.RegisterObserver(obs)
			defer g.raft.DeregisterObserver(obs)
		}
	}
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond) // LeaderWithID can trail the observation
	defer tick.Stop()
	for !cond() {
		select {
		case <-changes:
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: not within 60 s", what)
		}
	}
}

func (tc *testCluster) leaderOf(path string, alive ...*Node) *Node {
	for _, n := range alive {
		if g := n.Group(path); g != nil && g.IsLeader() {
			return n
		}
	}
	return nil
}

func TestClusterReplicatesAndRedirects(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader for /jobs", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	ctx := context.Background()
	res, err := leader.Group("/jobs").Propose(ctx, admitInline("hello"))
	if err != nil || res != (AdmitResult{Seq: 1}) {
		t.Fatalf("propose on the leader: %v, %v", res, err)
	}
	for _, n := range tc.nodes {
		if n == leader {
			continue
		}
		_, err := n.Group("/jobs").Propose(ctx, admitInline("nope"))
		var nl *NotLeaderError
		want := leader.self.URL.WithPath("/jobs").String()
		if !errors.As(err, &nl) || nl.Leader != want || nl.Term == 0 {
			t.Fatalf("propose on a follower: %v, want NotLeader naming %s", err, want)
		}
		// The follower applies what the leader committed.
		fsm := n.Group("/jobs").FSM
		for {
			ch, _ := fsm.Changed()
			if m, ok := fsm.Live(1); ok {
				if string(m.Body) != "hello" {
					t.Fatalf("the follower holds %q", m.Body)
				}
				break
			}
			select {
			case <-ch:
			case <-time.After(30 * time.Second):
				t.Fatal("the follower never applied the admission")
			}
		}
	}

	// The leader dies: the other two elect one of themselves and go on
	// from the committed state.
	leader.Close()
	var alive []*Node
	for _, n := range tc.nodes {
		if n != leader {
			alive = append(alive, n)
		}
	}
	tc.nodes = alive
	tc.waitFor(t, "a new leader", func() bool { return tc.leaderOf("/jobs", alive...) != nil })
	next := tc.leaderOf("/jobs", alive...)
	res, err = next.Group("/jobs").Propose(ctx, admitInline("after"))
	if err != nil || res != (AdmitResult{Seq: 2}) {
		t.Fatalf("propose on the new leader: %v, %v (seq must follow the committed state)", res, err)
	}
}

func TestLeadershipSpreadsOverTheMembers(t *testing.T) {
	tc := startCluster(t, 3, "/a", "/b", "/c")
	paths := []string{"/a", "/b", "/c"}
	tc.waitFor(t, "one queue led by each member", func() bool {
		led := map[*Node]int{}
		for _, p := range paths {
			l := tc.leaderOf(p, tc.nodes...)
			if l == nil {
				return false
			}
			led[l]++
		}
		return len(led) == 3
	})
}

// A member whose disk was wiped (same key, empty folder) rejoins and
// catches up by snapshot: the leader compacted its log, so the state can
// only reach it as a snapshot streamed over the Raft port, and the
// member's state machine ends equal to the leader's.
func TestAWipedMemberCatchesUpBySnapshot(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	var wiped int
	for i, n := range tc.nodes {
		if n != leader {
			wiped = i
			break
		}
	}
	tc.nodes[wiped].Close()
	ctx := context.Background()
	for i := range 200 {
		e := admitInline(fmt.Sprintf("message %d", i))
		if i%10 == 0 {
			e = admitStreamed(byte(i))
		}
		if _, err := leader.Group("/jobs").Propose(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := leader.Group("/jobs").Propose(ctx, Entry{Kind: EntrySettle, Seqs: []uint64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	g := leader.Group("/jobs")
	if err := g.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	// Only the snapshot holds what came before: drop the log behind it.
	if err := g.stores.Log.DeleteRange(1, g.raft.LastIndex()-1); err != nil {
		t.Fatal(err)
	}

	pc, err := net.ListenPacket("udp", tc.file.Members[wiped].Raft)
	if err != nil {
		t.Fatal(err)
	}
	back, err := StartNode(NodeConfig{File: tc.file, Identity: tc.ids[wiped], DataDir: t.TempDir(), RaftConn: pc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	fsm := back.Group("/jobs").FSM
	want := leader.Group("/jobs").FSM
	for fsm.Len() != want.Len() || fsm.NextSeq() != want.NextSeq() {
		ch, _ := fsm.Changed()
		select {
		case <-ch:
		case <-time.After(60 * time.Second):
			t.Fatalf("the wiped member holds %d messages (next %d), the leader %d (next %d)", fsm.Len(), fsm.NextSeq(), want.Len(), want.NextSeq())
		}
	}
	if m, ok := fsm.Live(11); !ok || m.Inline() || m.Digest != [32]byte(bytes.Repeat([]byte{10}, 32)) {
		t.Fatalf("a streamed message restored as %+v, %v", m, ok)
	}
	if _, ok := fsm.Live(2); ok {
		t.Fatal("a settled message came back in the snapshot")
	}
}
