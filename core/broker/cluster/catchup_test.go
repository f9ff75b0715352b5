package cluster

import (
	"github.com/weida-go/weida/internal/testlog"

	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// A member stopped while the queue admitted and settled a streamed body
// comes back on its own data folder and catches up through the log. The
// ADMIT it replays names a body every member deleted at the SETTLE: it
// stores that entry without the body (the SETTLE is committed, so no
// state it reaches reads it), neither stalling its log nor calling the
// store corrupt, and still fetches the body of a message that is live.
func TestAMemberBackFromAStopReplaysSettledBodies(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	g := leader.Group("/jobs")
	stopped, running := -1, -1
	for i, n := range tc.nodes {
		switch {
		case n == leader:
		case stopped < 0:
			stopped = i
		default:
			running = i
		}
	}
	tc.nodes[stopped].Close()

	ctx := context.Background()
	settledBody, liveBody := bigBody(30), bigBody(31)
	settled := commitBody(t, g.Payloads(), settledBody)
	res, err := g.Propose(ctx, streamedAdmitOf(settled, settledBody))
	if err != nil {
		t.Fatal(err)
	}
	seq := res.(AdmitResult).Seq
	if _, err := g.Propose(ctx, Entry{Kind: EntrySettle, Seqs: []uint64{seq}}); err != nil {
		t.Fatal(err)
	}
	live := commitBody(t, g.Payloads(), liveBody)
	res, err = g.Propose(ctx, streamedAdmitOf(live, liveBody))
	if err != nil {
		t.Fatal(err)
	}
	liveSeq := res.(AdmitResult).Seq
	for _, n := range []*Node{leader, tc.nodes[running]} {
		fg := n.Group("/jobs")
		waitApplied(t, fg.FSM, func() bool { _, ok := fg.FSM.Live(liveSeq); return ok })
		if fg.Payloads().Has(settled) {
			t.Fatal("a settled body outlived its SETTLE: the test would not replay a deleted body")
		}
	}

	logged := testlog.New("level=ERROR")
	back := tc.restartOn(t, stopped, tc.dirs[stopped], logged)
	bg := back.Group("/jobs")
	sameState(t, bg.FSM, g.FSM)
	waitMissing(t, bg.Payloads(), 0)
	if got, err := readBody(bg.Payloads(), live); err != nil || !bytes.Equal(got, liveBody) {
		t.Fatalf("the live message's body: %d bytes, %v", len(got), err)
	}
	if err := bg.MissingBodies(); err != nil {
		t.Fatal(err)
	}
	if out := logged.String(); strings.Contains(out, "level=ERROR") {
		t.Fatalf("the member logged an error catching up:\n%s", out)
	}
}

// A member answers that a body is settled only for a state it has applied
// past, and only when no live message refers to the body.
func TestSettledPastNeedsTheIndexAndNoLiveMessage(t *testing.T) {
	f := NewFSM()
	d := [32]byte{7}
	admit := streamedAdmitOf(d, bigBody(1)[:MaxInlineBody+1])
	raw, err := admit.Encode()
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(&raft.Log{Index: 5, Type: raft.LogCommand, Data: raw})
	if f.settledPast(5, d) {
		t.Fatal("a body a live message refers to was called settled")
	}
	settleEntry := Entry{Kind: EntrySettle, Seqs: []uint64{1}}
	settle, err := settleEntry.Encode()
	if err != nil {
		t.Fatal(err)
	}
	f.Apply(&raft.Log{Index: 6, Type: raft.LogCommand, Data: settle})
	for index, want := range map[uint64]bool{0: false, 5: true, 6: true, 7: false} {
		if got := f.settledPast(index, d); got != want {
			t.Errorf("settledPast(%d) = %v after the SETTLE at 6, want %v", index, got, want)
		}
	}
}
