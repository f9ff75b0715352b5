package cluster

import (
	"github.com/weida-go/weida/internal/testlog"

	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
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
	// faults is each member's network, faultless until a test says.
	faults []*FaultPlan
	// dirs is each member's data folder.
	dirs []string
}

// startCluster runs n members in this process, each with its own data
// folder, serving the given queue paths (flushed).
func startCluster(t testing.TB, n int, paths ...string) *testCluster {
	t.Helper()
	return startClusterWith(t, n, nil, paths...)
}

// startClusterWith is startCluster with set, when not nil, adjusting each
// member's configuration before it starts.
func startClusterWith(t testing.TB, n int, set func(i int, cfg *NodeConfig), paths ...string) *testCluster {
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
		tc.faults = append(tc.faults, NewFaultPlan(uint64(i)))
		tc.dirs = append(tc.dirs, t.TempDir())
		cfg := NodeConfig{File: file, Identity: tc.ids[i], DataDir: tc.dirs[i], RaftConn: pcs[i], Faults: tc.faults[i], Raft: PatientRaftConfig()}
		if set != nil {
			set(i, &cfg)
		}
		node, err := StartNode(cfg)
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
func (tc *testCluster) waitFor(t testing.TB, what string, cond func() bool) {
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
	// A follower learns who leads from the leader's first message to it,
	// which a commit by the other follower does not wait for.
	tc.waitFor(t, "every member knows the leader", func() bool {
		for _, n := range tc.nodes {
			if _, _, ok := n.Group("/jobs").Leader(); !ok {
				return false
			}
		}
		return true
	})
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

// compactBehindSnapshot snapshots g and drops its log behind the
// snapshot, so a member that lacks the state can only get it by snapshot.
func compactBehindSnapshot(t *testing.T, g *Group) {
	t.Helper()
	if err := g.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	if err := g.stores.Log.DeleteRange(1, g.raft.LastIndex()-1); err != nil {
		t.Fatal(err)
	}
}

// restartWiped starts member i again with its key and an empty data
// folder.
func (tc *testCluster) restartWiped(t *testing.T, i int, log io.Writer) *Node {
	t.Helper()
	return tc.restartOn(t, i, t.TempDir(), log)
}

// restartOn starts member i again with its key on data folder dir,
// logging to log (nil: nowhere).
func (tc *testCluster) restartOn(t *testing.T, i int, dir string, log io.Writer) *Node {
	t.Helper()
	pc, err := net.ListenPacket("udp", tc.file.Members[i].Raft)
	if err != nil {
		t.Fatal(err)
	}
	cfg := NodeConfig{File: tc.file, Identity: tc.ids[i], DataDir: dir, RaftConn: pc, Raft: PatientRaftConfig()}
	if log != nil {
		cfg.Log = slog.New(slog.NewTextHandler(log, nil))
	}
	back, err := StartNode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	return back
}

// sameState fails unless fsm holds exactly want's live messages.
func sameState(t *testing.T, fsm, want *FSM) {
	t.Helper()
	waitApplied(t, fsm, func() bool { return fsm.Len() == want.Len() && fsm.NextSeq() == want.NextSeq() })
	for seq := uint64(1); seq < want.NextSeq(); seq++ {
		m, ok := fsm.Live(seq)
		w, wok := want.Live(seq)
		if ok != wok || m.Digest != w.Digest || m.Length != w.Length || !bytes.Equal(m.Body, w.Body) || m.Attempts != w.Attempts {
			t.Fatalf("seq %d: the member holds %+v (%v), the leader %+v (%v)", seq, m.Digest, ok, w.Digest, wok)
		}
	}
}

// waitMissing waits until p lacks exactly n bodies.
func waitMissing(t *testing.T, p *Payloads, n int) {
	t.Helper()
	for {
		got, changed := p.Missing()
		if got == n {
			return
		}
		select {
		case <-changed:
		case <-time.After(60 * time.Second):
			t.Fatalf("the member still lacks %d bodies, want %d", got, n)
		}
	}
}

// Catch-up memory budget: a restoring member holds one snapshot frame
// (one message, at most 64 KiB) and one fetch buffer at a time, whatever
// the queue holds; this queue holds more than 4 MiB of bodies.
const (
	catchUpInline   = 600 // 4 KiB bodies: in the log, and in the snapshot
	catchUpStreamed = 40  // 64 KiB bodies: in the payload stores only
)

// proposeConcurrently proposes es on g from a few goroutines (group commit shares
// the fsyncs), failing on the first error.
func proposeConcurrently(t *testing.T, g *Group, es []Entry) {
	t.Helper()
	errs := make(chan error, len(es))
	work := make(chan Entry)
	for range 8 {
		go func() {
			for e := range work {
				_, err := g.Propose(context.Background(), e)
				errs <- err
			}
		}()
	}
	for _, e := range es {
		work <- e
	}
	close(work)
	for range es {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A member whose disk was wiped (same key, empty folder) rejoins and
// catches up by snapshot while the queue holds more than the catch-up
// memory budget: the leader compacted its log, so the state can only
// reach it as a snapshot streamed over the Raft port; its state machine
// ends equal to the leader's, and it fetches every streamed body.
func TestAWipedMemberCatchesUpBySnapshot(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	g := leader.Group("/jobs")
	var wiped int
	for i, n := range tc.nodes {
		if n != leader {
			wiped = i
			break
		}
	}
	tc.nodes[wiped].Close()
	var es []Entry
	held := 0
	for i := range catchUpInline {
		body := bytes.Repeat([]byte{byte(i), byte(i >> 8)}, MaxInlineBody/2)
		d := sha256.Sum256(body)
		es = append(es, Entry{Kind: EntryAdmit, Digest: d[:], Length: uint64(len(body)), Body: body})
		held += len(body)
	}
	for i := range catchUpStreamed {
		body := bytes.Repeat([]byte{byte(i), 0xee}, 32<<10)
		es = append(es, streamedAdmitOf(commitBody(t, g.Payloads(), body), body))
		held += len(body)
	}
	if held <= 4<<20 {
		t.Fatalf("the queue holds %d bytes, not more than the 4 MiB budget", held)
	}
	proposeConcurrently(t, g, es)
	// Three settled, one of them streamed: neither comes back.
	var settled []uint64
	for seq := uint64(1); len(settled) < 3; seq++ {
		if m, _ := g.FSM.Live(seq); !m.Inline() || len(settled) < 2 {
			settled = append(settled, seq)
		}
	}
	if _, err := g.Propose(context.Background(), Entry{Kind: EntrySettle, Seqs: settled}); err != nil {
		t.Fatal(err)
	}
	compactBehindSnapshot(t, g)

	back := tc.restartWiped(t, wiped, nil)
	bg := back.Group("/jobs")
	sameState(t, bg.FSM, g.FSM)
	waitMissing(t, bg.Payloads(), 0)
	for seq := uint64(1); seq < g.FSM.NextSeq(); seq++ {
		m, ok := g.FSM.Live(seq)
		if !ok || m.Inline() {
			continue
		}
		want, _ := readBody(g.Payloads(), m.Digest)
		if got, err := readBody(bg.Payloads(), m.Digest); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("seq %d: the wiped member read %d bytes of its body, %v", seq, len(got), err)
		}
	}
	if err := bg.MissingBodies(); err != nil {
		t.Fatal(err)
	}
	for _, seq := range settled {
		if _, ok := bg.FSM.Live(seq); ok {
			t.Fatalf("settled message %d came back in the snapshot", seq)
		}
	}
}

// A committed ADMIT whose body no member holds any more is a corrupt
// store: the member that needs it says so, naming the digest, and never
// drops the message.
func TestABodyNoMemberHoldsIsNamedCorrupt(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	g := leader.Group("/jobs")
	body := bigBody(20)
	d := commitBody(t, g.Payloads(), body)
	res, err := g.Propose(context.Background(), streamedAdmitOf(d, body))
	if err != nil {
		t.Fatal(err)
	}
	seq := res.(AdmitResult).Seq
	wiped := -1
	for i, n := range tc.nodes {
		fg := n.Group("/jobs")
		waitApplied(t, fg.FSM, func() bool { _, ok := fg.FSM.Live(seq); return ok })
		if n != leader && wiped < 0 {
			wiped = i
		}
	}
	tc.nodes[wiped].Close()
	// Every copy lost (a disk fault on each member).
	for i, n := range tc.nodes {
		if i != wiped {
			if err := os.Remove(n.Group("/jobs").Payloads().path(d)); err != nil {
				t.Fatal(err)
			}
		}
	}
	compactBehindSnapshot(t, g)
	logged := testlog.New(fmt.Sprintf("%x", d))
	back := tc.restartWiped(t, wiped, logged)
	bg := back.Group("/jobs")
	sameState(t, bg.FSM, g.FSM)
	select {
	case <-logged.Seen():
	case <-time.After(60 * time.Second):
		t.Fatal("the member never said which body it could not fetch")
	}
	var lost *MissingBodyError
	if err := bg.MissingBodies(); !errors.As(err, &lost) || lost.Digest != d || !strings.Contains(err.Error(), "corrupt store") {
		t.Fatalf("MissingBodies = %v, want the corrupt store naming %x", err, d)
	}
	if _, ok := bg.FSM.Live(seq); !ok {
		t.Fatal("the message whose body is lost was dropped")
	}
	if _, err := bg.Payloads().Open(d); err == nil {
		t.Fatal("a body no member holds opened")
	}
}
