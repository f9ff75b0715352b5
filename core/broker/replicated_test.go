package broker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/guarantee"
)

// testMember is one broker of an in-process cluster.
type testMember struct {
	*testBroker
	id     *weida.Identity
	url    string             // its client URL, without a path
	raft   string             // its Raft address
	faults *cluster.FaultPlan // under its Raft socket
}

// testCluster is n brokers in this process on loopback, each with its own
// runtime, binding, Raft socket and data folder, serving paths replicated.
type testCluster struct {
	file    *cluster.File
	members []*testMember
}

// startReplicated runs an n-member cluster serving paths at durability
// ("written" or "flushed").
func startReplicated(t *testing.T, n int, durability string, paths ...string) *testCluster {
	t.Helper()
	tc := &testCluster{}
	var members, queueList []string
	pcs := make([]net.PacketConn, n)
	for i := range n {
		id, err := weida.GenerateIdentity()
		if err != nil {
			t.Fatal(err)
		}
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		m := &testMember{id: id, raft: pc.LocalAddr().String(), faults: cluster.NewFaultPlan(uint64(i + 1))}
		pcs[i] = m.faults.Wrap(pc)
		tc.members = append(tc.members, m)
		members = append(members, "")
	}
	for _, p := range paths {
		queueList = append(queueList, fmt.Sprintf(`{"path": %q, "durability": %q}`, p, durability))
	}
	// The file names every member's client port, so each binds before the
	// file exists; its runtime offers what RuntimeConfig will (checked below).
	d := guarantee.Written
	if durability == "flushed" {
		d = guarantee.Flushed
	}
	offer := guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: n/2 + 1, Durability: d}
	for i, m := range tc.members {
		rt := newRuntimeWith(t, weida.Config{ServesQueues: true, Offer: offer})
		b, err := rt.Listener().BindQUIC("127.0.0.1:0", m.id)
		if err != nil {
			t.Fatal(err)
		}
		m.testBroker = &testBroker{rt: rt, binding: b}
		m.url = strings.TrimSuffix(b.URL("/"), "/")
		members[i] = fmt.Sprintf(`{"url": %q, "raft": %q}`, m.url, m.raft)
	}
	raw := fmt.Sprintf(`{"members": [%s], "queues": [%s]}`, strings.Join(members, ","), strings.Join(queueList, ","))
	file, err := cluster.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	tc.file = file
	for i, m := range tc.members {
		cfg := Config{DataDir: t.TempDir(), Cluster: &ClusterConfig{File: file, Identity: m.id, RaftConn: pcs[i], Raft: cluster.PatientRaftConfig()}}
		if got := RuntimeConfig(weida.Config{}, cfg).Offer; got != m.rt.Offered() {
			t.Fatalf("RuntimeConfig offers %v, the test's runtime %v", got, m.rt.Offered())
		}
		br, err := New(m.rt, cfg)
		if err != nil {
			t.Fatalf("member %d: New: %v", i, err)
		}
		serveUntilCleanup(t, br)
		m.Broker = br
	}
	return tc
}

// leader waits until one member serves path as its leader and returns it.
func (tc *testCluster) leader(t *testing.T, path string) *testMember {
	t.Helper()
	for _, m := range tc.members {
		q := m.byPath[path]
		if err := q.await(ctxFor(t), func() bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	ctx := ctxFor(t)
	found := make(chan *testMember, len(tc.members))
	for _, m := range tc.members {
		go func() {
			q := m.byPath[path]
			if q.await(ctx, func() bool { return q.repl.serving }) == nil {
				found <- m
			}
		}()
	}
	select {
	case m := <-found:
		return m
	case <-ctx.Done():
		t.Fatalf("no member came to serve %s", path)
		return nil
	}
}

func TestReplicatedQueueCertifiesReplicatedAndDelivers(t *testing.T) {
	tc := startReplicated(t, 3, "flushed", "/jobs")
	leader := tc.leader(t, "/jobs")

	p := newProducer(t, leader.url+"/jobs")
	p.mustSendLevel(t, weida.Replicated, "", []byte("first"))
	big := []byte(strings.Repeat("x", 64<<10))
	p.mustSendLevel(t, weida.Replicated, "", big)

	if s := leader.stats(t, "/jobs"); s.Ready != 2 {
		t.Fatalf("the leader holds %d ready, want 2", s.Ready)
	}
	// Each delivery commits its DELIVER first, so the two may arrive in
	// either order; both arrive whole, at attempt 1.
	c := newConsumer(t, leader.url+"/jobs", "", 10)
	got := map[int]bool{}
	for range 2 {
		r := c.recv(t)
		if r.attempt != 1 || (string(r.body) != "first" && !bytes.Equal(r.body, big)) {
			t.Fatalf("delivery of %d bytes at attempt %d: not what was sent", len(r.body), r.attempt)
		}
		got[len(r.body)] = true
		r.settle(t)
	}
	if len(got) != 2 {
		t.Fatalf("delivered %v, want both messages once", got)
	}
	leader.awaitSettled(t, "/jobs")

	// Every member's FSM agrees: nothing is live once both settled.
	for _, m := range tc.members {
		awaitLive(t, m.node.Group("/jobs"), 0)
	}
}

func TestAFollowerAnswersNotLeaderNamingTheLeader(t *testing.T) {
	tc := startReplicated(t, 3, "written", "/jobs")
	leader := tc.leader(t, "/jobs")
	var follower *testMember
	for _, m := range tc.members {
		if m != leader {
			follower = m
			break
		}
	}
	// Asked of a follower, the producer hears where the leader is (or, with
	// redirects, is taken there: either way nothing is admitted here).
	rt := newRuntime(t)
	req := rt.Requester(weida.TrustByAddress())
	if err := req.Connect(ctxFor(t), follower.url+"/jobs"); err != nil {
		t.Fatal(err)
	}
	_, meta, err := req.RequestWith(ctxFor(t), weida.TransferMeta{}, []byte("x"), 1024)
	var nl *weida.NotLeaderError
	switch {
	case errors.As(err, &nl):
		if !strings.HasPrefix(nl.Leader, leader.url) {
			t.Fatalf("NOT_LEADER names %q, want the leader %s", nl.Leader, leader.url)
		}
	case err == nil:
		if level, _ := meta.Achieved(); level != weida.Replicated {
			t.Fatalf("redirected confirm at level %d, want Replicated", level)
		}
	default:
		t.Fatalf("send to a follower: %v", err)
	}
	if s := follower.stats(t, "/jobs"); s.Ready != 0 || s.Cluster == nil || s.Cluster.IsLeader {
		t.Fatalf("the follower holds %d ready, cluster stats %+v", s.Ready, s.Cluster)
	}
}

func TestReplicasAboveTheQuorumFailNegotiation(t *testing.T) {
	tc := startReplicated(t, 3, "flushed", "/jobs")
	leader := tc.leader(t, "/jobs")
	rt := newRuntimeWith(t, weida.Config{Guarantees: guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: 3, Durability: guarantee.Flushed}})
	req := rt.Requester(weida.TrustByAddress())
	err := req.Connect(ctxFor(t), leader.url+"/jobs")
	if err == nil {
		_, _, err = req.RequestWith(ctxFor(t), weida.TransferMeta{}, []byte("x"), 1024)
	}
	if err == nil || !strings.Contains(err.Error(), "replicas") {
		t.Fatalf("requiring Replicated(3, Flushed) of a 3-node cluster: %v, want a negotiation failure naming replicas", err)
	}
	// Replicated(2, Flushed) is what it offers, so that requirement connects.
	ok := newRuntimeWith(t, weida.Config{Guarantees: guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: 2, Durability: guarantee.Flushed}})
	req2 := ok.Requester(weida.TrustByAddress())
	if err := req2.Connect(ctxFor(t), leader.url+"/jobs"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := req2.RequestWith(ctxFor(t), weida.TransferMeta{}, []byte("y"), 1024); err != nil {
		t.Fatalf("requiring Replicated(2, Flushed): %v", err)
	}
}

// stop ends a member as a crash would, as far as its peers can tell: its
// broker, Raft groups and runtime close.
func (m *testMember) stop() {
	m.Broker.Close()
	m.rt.Shutdown()
}

// others is every member but m.
func (tc *testCluster) others(m *testMember) []*testMember {
	var out []*testMember
	for _, o := range tc.members {
		if o != m {
			out = append(out, o)
		}
	}
	return out
}

// leaderAmong waits until one of ms serves path and returns it.
func leaderAmong(t *testing.T, path string, ms []*testMember) *testMember {
	t.Helper()
	sub := &testCluster{members: ms}
	return sub.leader(t, path)
}

func TestAFailoverKeepsEveryReplicatedMessage(t *testing.T) {
	tc := startReplicated(t, 3, "written", "/jobs")
	old := tc.leader(t, "/jobs")
	p := newProducer(t, old.url+"/jobs")
	const n = 50
	for i := range n {
		p.mustSendLevel(t, weida.Replicated, "", []byte(fmt.Sprintf("m%03d", i)))
	}
	// Two are delivered and settled on the old leader; one is delivered
	// and left unsettled when it dies.
	c := newConsumer(t, old.url+"/jobs", "", 3)
	settled := map[string]bool{}
	var unsettled received
	for i := range 3 {
		r := c.recv(t)
		if i < 2 {
			r.settle(t)
			settled[string(r.body)] = true
		} else {
			unsettled = r
		}
	}
	// Both SETTLEs are committed before the leader dies, so neither
	// message may come back.
	awaitLive(t, old.node.Group("/jobs"), n-2)
	old.stop()

	next := leaderAmong(t, "/jobs", tc.others(old))
	s := next.stats(t, "/jobs")
	if s.Cluster == nil || !s.Cluster.IsLeader || s.Cluster.Term <= 1 {
		t.Fatalf("the new leader's cluster stats: %+v", s.Cluster)
	}
	// Every message not settled is there, once; the one that was out when
	// the leader died at attempt 2 (its DELIVER was committed).
	c2 := newConsumer(t, next.url+"/jobs", "", n)
	seen := map[string]uint64{}
	for len(seen) < n-len(settled) {
		r := c2.recv(t)
		body := string(r.body)
		if settled[body] {
			t.Fatalf("%s came back though its settlement was committed", body)
		}
		if _, dup := seen[body]; dup {
			t.Fatalf("%s delivered twice by the new leader", body)
		}
		seen[body] = r.attempt
		r.settle(t)
	}
	if a := seen[string(unsettled.body)]; a != 2 {
		t.Fatalf("the message out when the leader died came back at attempt %d, want 2", a)
	}
}

// awaitLive waits until g's FSM holds n live messages.
func awaitLive(t *testing.T, g *cluster.Group, n int) {
	t.Helper()
	ctx := ctxFor(t)
	for {
		ch, _ := g.FSM.Changed()
		if g.FSM.Len() == n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("the group holds %d live messages, want %d", g.FSM.Len(), n)
		}
	}
}

func TestRetireHandsTheLeadershipOn(t *testing.T) {
	tc := startReplicated(t, 3, "written", "/jobs")
	old := tc.leader(t, "/jobs")
	p := newProducer(t, old.url+"/jobs")
	p.mustSendLevel(t, weida.Replicated, "", []byte("kept"))
	old.Retire(time.Now().Add(10 * time.Second))
	if old.node.Group("/jobs").IsLeader() {
		t.Fatal("the retired member still leads /jobs")
	}
	next := leaderAmong(t, "/jobs", tc.others(old))
	c := newConsumer(t, next.url+"/jobs", "", 1)
	if r := c.recv(t); string(r.body) != "kept" {
		t.Fatalf("the new leader delivered %d bytes, want \"kept\"", len(r.body))
	}
}

func TestAMinorityLeaderConfirmsAndDeliversNothing(t *testing.T) {
	tc := startReplicated(t, 3, "written", "/jobs")
	old := tc.leader(t, "/jobs")
	p := newProducer(t, old.url+"/jobs")
	for i := range 3 {
		p.mustSendLevel(t, weida.Replicated, "", []byte(fmt.Sprintf("before-%d", i)))
	}
	majority := tc.others(old)
	if err := old.faults.Partition(majority[0].raft, majority[1].raft); err != nil {
		t.Fatal(err)
	}

	// Cut off, the old leader may believe it leads a while longer: nothing
	// it is asked in that time is confirmed, and a consumer that comes to
	// it with credit gets nothing (every delivery must commit a DELIVER).
	// The request is streamed, so no redirect can resend it elsewhere:
	// whatever answers, it is the old leader.
	newConsumer(t, old.url+"/jobs", "", 3)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, reply, err := p.req.Open(ctx, weida.TransferMeta{}); err == nil {
		_, _ = out.Write([]byte("during"))
		_, _ = out.Finish()
		if in, err := reply.Recv(ctx); err == nil {
			level, ok := in.Meta().Achieved()
			t.Fatalf("a minority leader answered (level %d, present %v)", level, ok)
		}
	}
	next := leaderAmong(t, "/jobs", majority)
	if s := old.stats(t, "/jobs"); s.Delivered != 0 {
		t.Fatalf("the minority leader wrote %d deliveries", s.Delivered)
	}

	// The majority serves what was committed.
	c2 := newConsumer(t, next.url+"/jobs", "", 10)
	got := map[string]bool{}
	for len(got) < 3 {
		r := c2.recv(t)
		if !strings.HasPrefix(string(r.body), "before-") {
			t.Fatalf("the new leader delivered %q, never confirmed", r.body)
		}
		got[string(r.body)] = true
		r.settle(t)
	}
	p2 := newProducer(t, next.url+"/jobs")
	p2.mustSendLevel(t, weida.Replicated, "", []byte("after"))
	if r := c2.recv(t); string(r.body) != "after" {
		t.Fatalf("delivered %q, want \"after\" (\"during\" was never confirmed)", r.body)
	}

	// Healed, the old leader follows: it applies the majority's entries
	// and leads nothing.
	// Its state machine comes to hold what the leader's holds (the
	// channel is taken before each look, so no apply goes unseen; the
	// applied index is no such event: Raft's own entries advance it too).
	old.faults.Heal()
	lead := next.node.Group("/jobs").FSM
	g := old.node.Group("/jobs")
	ctx2 := ctxFor(t)
	for {
		ch, _ := g.FSM.Changed()
		if g.FSM.NextSeq() == lead.NextSeq() && g.FSM.Len() == lead.Len() {
			break
		}
		select {
		case <-ch:
		case <-ctx2.Done():
			t.Fatalf("the healed member holds %d live (next seq %d), the leader %d (next seq %d)",
				g.FSM.Len(), g.FSM.NextSeq(), lead.Len(), lead.NextSeq())
		}
	}
	if g.IsLeader() {
		t.Fatal("the healed member leads again")
	}
}
