package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// refusedOrIndeterminate reports whether err is what a proposal on a node
// that cannot commit must end in: never success.
func refusedOrIndeterminate(err error) bool {
	var nl *NotLeaderError
	return errors.As(err, &nl) || errors.Is(err, ErrIndeterminate)
}

// sameLog fails unless every member holds the same entries (index, term,
// kind, data) up to last.
func sameLog(t *testing.T, path string, last uint64, nodes ...*Node) {
	t.Helper()
	ref := nodes[0].Group(path).stores.Log
	for _, n := range nodes[1:] {
		log := n.Group(path).stores.Log
		for i := uint64(1); i <= last; i++ {
			var want, got raft.Log
			werr, gerr := ref.GetLog(i, &want), log.GetLog(i, &got)
			if werr != nil || gerr != nil || want.Term != got.Term || want.Type != got.Type || !bytes.Equal(want.Data, got.Data) {
				t.Fatalf("log index %d: %s holds term %d (%v), %s term %d (%v): a divergent entry",
					i, nodes[0].self.Key, want.Term, werr, n.self.Key, got.Term, gerr)
			}
		}
	}
}

func othersThan(nodes []*Node, n *Node) []*Node {
	var out []*Node
	for _, o := range nodes {
		if o != n {
			out = append(out, o)
		}
	}
	return out
}

// A leader cut off in a minority commits nothing: neither an ADMIT nor a
// DELIVER proposed there succeeds. The majority elects a leader of its own
// and commits; the old leader, healed, follows it, and its log holds no
// entry the majority's does not.
func TestALeaderPartitionedIntoAMinorityCommitsNothing(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	old := tc.leaderOf("/jobs", tc.nodes...)
	og := old.Group("/jobs")
	ctx := context.Background()
	if _, err := og.Propose(ctx, admitInline("before")); err != nil {
		t.Fatal(err)
	}
	majority := othersThan(tc.nodes, old)
	var oldIndex int
	for i, n := range tc.nodes {
		if n == old {
			oldIndex = i
		}
	}
	if err := tc.faults[oldIndex].Partition(majority[0].self.Raft, majority[1].self.Raft); err != nil {
		t.Fatal(err)
	}

	// Proposed on the cut-off leader, from before it knows until after
	// it stepped down: none may succeed. The streamed ADMIT goes to Raft
	// straight away (a Propose would first spend its push's timeouts), so
	// it is in the cut-off leader's log with its body.
	minorityBody := bigBody(60)
	minorityDigest := commitBody(t, og.Payloads(), minorityBody)
	minorityAdmit := streamedAdmitOf(minorityDigest, minorityBody)
	raw, err := minorityAdmit.Encode()
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan error, 3)
	go func() { _, err := og.Propose(ctx, admitInline("minority")); results <- err }()
	go func() { _, err := og.Propose(ctx, Entry{Kind: EntryDeliver, Seq: 1, Attempt: 7}); results <- err }()
	go func() {
		err := og.raft.Apply(raw, 10*time.Second).Error()
		if !errors.Is(err, raft.ErrLeadershipLost) {
			err = fmt.Errorf("the streamed ADMIT ended with %v, want ErrLeadershipLost (appended, never committed)", err)
		} else {
			err = ErrIndeterminate
		}
		results <- err
	}()
	for range 3 {
		if err := <-results; !refusedOrIndeterminate(err) {
			t.Fatalf("a proposal on the minority leader ended with %v, want NotLeader or Indeterminate", err)
		}
	}
	if _, err := og.Propose(ctx, admitInline("minority again")); !refusedOrIndeterminate(err) {
		t.Fatalf("a later proposal on the cut-off node: %v", err)
	}

	tc.waitFor(t, "a leader in the majority", func() bool { return tc.leaderOf("/jobs", majority...) != nil })
	next := tc.leaderOf("/jobs", majority...)
	ng := next.Group("/jobs")
	res, err := ng.Propose(ctx, admitInline("majority"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ng.Propose(ctx, Entry{Kind: EntryDeliver, Seq: res.(AdmitResult).Seq, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if og.FSM.NextSeq() != 2 {
		t.Fatalf("the cut-off node applied an admission: next seq %d", og.FSM.NextSeq())
	}
	if m, _ := og.FSM.Live(1); m.Attempts != 0 {
		t.Fatalf("the cut-off node applied a delivery: attempts %d", m.Attempts)
	}

	tc.faults[oldIndex].Heal()
	res, err = ng.Propose(ctx, admitInline("after the heal"))
	if err != nil {
		t.Fatalf("the majority's leader, once the old one is healed: %v", err)
	}
	last := res.(AdmitResult).Seq
	waitApplied(t, og.FSM, func() bool { _, ok := og.FSM.Live(last); return ok })
	sameState(t, og.FSM, ng.FSM)
	if og.IsLeader() {
		t.Fatal("the healed node leads")
	}
	for seq := uint64(1); seq <= last; seq++ {
		m, _ := ng.FSM.Live(seq)
		if string(m.Body) == "minority" || string(m.Body) == "minority again" {
			t.Fatalf("seq %d holds %q, proposed in the minority", seq, m.Body)
		}
		if seq == 1 && m.Attempts == 7 {
			t.Fatal("the minority's DELIVER was committed")
		}
	}
	sameLog(t, "/jobs", ng.raft.LastIndex(), next, old, othersThan(majority, next)[0])
	// The body of the ADMIT the heal cut from the old leader's log went
	// with it.
	if og.Payloads().Has(minorityDigest) {
		t.Fatal("the old leader kept the body of an ADMIT cut from its log")
	}
}

// Delayed and lossy links still converge: every member ends with the same
// state and the same log.
func TestDelayAndLossStillConverge(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.faults[0].Delay(15 * time.Millisecond)
	for _, f := range tc.faults {
		f.Drop(0.05)
	}
	ctx := context.Background()
	const entries = 40
	committed := 0
	for committed < entries {
		tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
		g := tc.leaderOf("/jobs", tc.nodes...).Group("/jobs")
		if g == nil {
			continue
		}
		_, err := g.Propose(ctx, admitInline(fmt.Sprintf("message %d", committed)))
		switch {
		case err == nil:
			committed++
		case !refusedOrIndeterminate(err):
			t.Fatal(err)
		}
	}
	for _, f := range tc.faults {
		f.Drop(0)
		f.Delay(0)
	}
	leader := tc.leaderOf("/jobs", tc.nodes...)
	var lg *Group
	for lg == nil {
		tc.waitFor(t, "a leader", func() bool { leader = tc.leaderOf("/jobs", tc.nodes...); return leader != nil })
		// A barrier entry of the current term, applied everywhere below.
		if _, err := leader.Group("/jobs").Propose(ctx, admitInline("last")); err == nil {
			lg = leader.Group("/jobs")
		}
	}
	for _, n := range othersThan(tc.nodes, leader) {
		sameState(t, n.Group("/jobs").FSM, lg.FSM)
	}
	sameLog(t, "/jobs", lg.raft.AppliedIndex(), tc.nodes...)
}
