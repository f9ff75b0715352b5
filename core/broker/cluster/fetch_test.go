package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport/raftlayer"
)

func fetchAnswer(status byte, length uint64, body []byte) []byte {
	out := []byte{status}
	if status == fetchFound {
		out = binary.LittleEndian.AppendUint64(out, length)
		out = append(out, body...)
	}
	return out
}

// limitedWriter fails the test when more than max bytes reach it.
type limitedWriter struct {
	t   testing.TB
	max int
	bytes.Buffer
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.Len()+len(p) > w.max {
		w.t.Fatalf("the answer's reader wrote %d bytes, past the ADMIT's %d", w.Len()+len(p), w.max)
	}
	return w.Buffer.Write(p)
}

func TestFetchAnswers(t *testing.T) {
	body := bigBody(1)
	d := sha256.Sum256(body)
	n := uint64(len(body))
	other := append(bytes.Clone(body[:len(body)-1]), 'x')
	for _, tc := range []struct {
		name   string
		answer []byte
		want   error // nil: the body
	}{
		{"the body", fetchAnswer(fetchFound, n, body), nil},
		{"unknown", []byte{fetchUnknown}, errFetchUnknown},
		{"unknown and more", []byte{fetchUnknown, 0}, errFetchMalformed},
		{"settled", []byte{fetchSettled}, errBodySettled},
		{"settled and more", []byte{fetchSettled, 0}, errFetchMalformed},
		{"another digest", fetchAnswer(fetchFound, n, other), errFetchMalformed},
		{"another length", fetchAnswer(fetchFound, n+1, append(bytes.Clone(body), 'x')), errFetchMalformed},
		{"runs past its length", fetchAnswer(fetchFound, n, append(bytes.Clone(body), 'x')), errFetchMalformed},
		{"ends early", fetchAnswer(fetchFound, n, body[:100]), io.ErrUnexpectedEOF},
		{"a status no version has", []byte{7}, errFetchMalformed},
		{"a header cut short", []byte{fetchFound, 1, 2}, io.ErrUnexpectedEOF},
		{"nothing", nil, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &limitedWriter{t: t, max: len(body)}
			err := readFetchAnswer(bytes.NewReader(tc.answer), d, n, w)
			switch {
			case tc.want == nil && (err != nil || !bytes.Equal(w.Bytes(), body)):
				t.Fatalf("read %d bytes, %v", w.Len(), err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFetchRequests(t *testing.T) {
	d := sha256.Sum256([]byte("x"))
	get := fetchRequest{digest: d, index: 0x0102030405060708}
	push := fetchRequest{push: true, digest: d, length: MaxInlineBody + 1}
	// The wire form: op, digest, then the index (a get) or the length (a
	// push), both u64 little-endian.
	golden := map[string][]byte{
		"get":  append(append([]byte{fetchOpGet}, d[:]...), 8, 7, 6, 5, 4, 3, 2, 1),
		"push": append(append([]byte{fetchOpPush}, d[:]...), 0x01, 0x10, 0, 0, 0, 0, 0, 0),
	}
	for name, req := range map[string]fetchRequest{"get": get, "push": push} {
		if got := req.encode(); !bytes.Equal(got, golden[name]) {
			t.Fatalf("%s encodes as % x, want % x", name, got, golden[name])
		}
	}
	for _, want := range []fetchRequest{get, push} {
		if got, err := readFetchRequest(bytes.NewReader(want.encode())); err != nil || got != want {
			t.Fatalf("%+v read back as %+v, %v", want, got, err)
		}
	}
	small := fetchRequest{push: true, digest: d, length: MaxInlineBody}
	for name, bad := range map[string][]byte{
		"empty": nil, "an op alone": {fetchOpGet}, "bytes after a get": append(get.encode(), 0),
		"a push cut short": push.encode()[:pushHeaderLen-1], "a push of an inline body": small.encode(), "an unknown op": {9},
	} {
		if _, err := readFetchRequest(bytes.NewReader(bad)); !errors.Is(err, errFetchMalformed) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// readFetchRequest never panics, and what it accepts encodes back to the
// bytes it read.
func FuzzFetchRequest(f *testing.F) {
	d := sha256.Sum256([]byte("x"))
	f.Add(fetchRequest{digest: d, index: 42}.encode())
	f.Add(fetchRequest{push: true, digest: d, length: 1 << 20}.encode())
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := readFetchRequest(bytes.NewReader(b))
		if err == nil && !bytes.HasPrefix(b, req.encode()) {
			t.Fatalf("% x read as %+v, which encodes otherwise", b, req)
		}
		if err == nil && !req.push && len(b) != fetchRequestLen {
			t.Fatalf("a get of %d bytes accepted", len(b))
		}
	})
}

// Whatever a member answers, the reader writes no more than the ADMIT's
// length, and succeeds only with the body that hashes to the digest.
func FuzzFetchAnswer(f *testing.F) {
	body := []byte("the body a member asked for, short here")
	f.Add(fetchAnswer(fetchFound, uint64(len(body)), body), uint64(len(body)))
	f.Add([]byte{fetchUnknown}, uint64(10))
	f.Add([]byte{fetchSettled}, uint64(10))
	f.Add(fetchAnswer(fetchFound, 3, []byte("abcd")), uint64(3))
	d := sha256.Sum256(body)
	f.Fuzz(func(t *testing.T, answer []byte, length uint64) {
		length %= 1 << 20
		w := &limitedWriter{t: t, max: int(length)}
		err := readFetchAnswer(bytes.NewReader(answer), d, length, w)
		if err == nil && !bytes.Equal(w.Bytes(), body) {
			t.Fatalf("accepted %q as the body of %x", w.Bytes(), d)
		}
	})
}

func waitApplied(t *testing.T, fsm *FSM, cond func() bool) {
	t.Helper()
	for !cond() {
		ch, _ := fsm.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-time.After(60 * time.Second):
			t.Fatal("the state machine never got there")
		}
	}
}

// A streamed body reaches every member with its ADMIT: a follower that
// applied the ADMIT reads the body whole from its own store, and the
// SETTLE that frees it deletes it there too.
func TestStreamedBodiesReachEveryMember(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	g := tc.leaderOf("/jobs", tc.nodes...).Group("/jobs")
	body := bigBody(11)
	d := commitBody(t, g.Payloads(), body)
	res, err := g.Propose(t.Context(), streamedAdmitOf(d, body))
	if err != nil {
		t.Fatal(err)
	}
	seq := res.(AdmitResult).Seq
	for _, n := range tc.nodes {
		fg := n.Group("/jobs")
		waitApplied(t, fg.FSM, func() bool { _, ok := fg.FSM.Live(seq); return ok })
		if got, err := readBody(fg.Payloads(), d); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("member %s read %d bytes of the body, %v", n.self.Key, len(got), err)
		}
	}
	if _, err := g.Propose(t.Context(), Entry{Kind: EntrySettle, Seqs: []uint64{seq}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range tc.nodes {
		fg := n.Group("/jobs")
		waitApplied(t, fg.FSM, func() bool { _, ok := fg.FSM.Live(seq); return !ok })
		if fg.Payloads().Has(d) {
			t.Fatalf("member %s kept a settled body", n.self.Key)
		}
	}
	// Without the leader's push (an entry applied by Raft directly), each
	// follower fetches the body while storing the ADMIT.
	body = bigBody(14)
	d = commitBody(t, g.Payloads(), body)
	e := streamedAdmitOf(d, body)
	raw, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	gets := g.served.gets.Load()
	if err := g.raft.Apply(raw, 10*time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	seq = g.FSM.NextSeq() - 1
	for _, n := range tc.nodes {
		fg := n.Group("/jobs")
		waitApplied(t, fg.FSM, func() bool { _, ok := fg.FSM.Live(seq); return ok })
		if got, err := readBody(fg.Payloads(), d); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("member %s read %d bytes of the fetched body, %v", n.self.Key, len(got), err)
		}
	}
	if fetched := g.served.gets.Load() - gets; fetched != 2 {
		t.Fatalf("the leader served %d fetches, want one per follower", fetched)
	}

	// An ADMIT of a body the leader lacks is refused before the log.
	missing := sha256.Sum256([]byte("never written"))
	if _, err := g.Propose(t.Context(), streamedAdmitOf(missing, bigBody(12))); err == nil || !strings.Contains(err.Error(), "lacks") {
		t.Fatalf("an ADMIT of a body the leader lacks: %v", err)
	}
}

// impostor replaces member i of a running cluster by a bare Raft port
// with its key, which speaks the fetch protocol as a test tells it to.
func (tc *testCluster) impostor(t *testing.T, i int, path string) (*raftlayer.Node, *raftlayer.Group) {
	t.Helper()
	tc.nodes[i].Close()
	pc, err := net.ListenPacket("udp", tc.file.Members[i].Raft)
	if err != nil {
		t.Fatal(err)
	}
	cfg := raftlayer.Config{Identity: tc.ids[i], Digest: tc.file.digest, Members: map[string]identity.Fingerprint{}}
	for _, m := range tc.file.Members {
		cfg.Members[m.Raft] = m.Key
	}
	port, err := raftlayer.Serve(pc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { port.Close() })
	g, err := port.Group(GroupID(path))
	if err != nil {
		t.Fatal(err)
	}
	tc.nodes = append(tc.nodes[:i:i], tc.nodes[i+1:]...)
	return port, g
}

// connectionClosedBadFrame reports whether err is the end of a connection
// closed for a malformed frame.
func connectionClosedBadFrame(err error) bool {
	var ae *quic.ApplicationError
	return errors.As(err, &ae) && ae.ErrorCode == 3
}

// A member that sends a malformed fetch request has its connection
// closed; one that answers with a wrong, short, long or garbled body
// does too, and the asker keeps nothing of it. The queue goes on.
func TestMalformedFetchesCloseThePeersConnection(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	_, fake := tc.impostor(t, 2, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	lg := leader.Group("/jobs")
	body := bigBody(13)
	d := sha256.Sum256(body)

	for _, req := range [][]byte{{9}, append(fetchRequest{digest: d}.encode(), 0), append([]byte{fetchOpPush}, d[:]...), nil,
		fetchRequest{push: true, digest: d, length: 10}.encode()} {
		s, err := fake.DialFetch(leader.self.Raft, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.Write(req)
		s.Stream.Close()
		_, err = io.ReadAll(s)
		if !connectionClosedBadFrame(err) {
			t.Fatalf("a request of % x: read %v, want the connection closed with code 3", req, err)
		}
	}

	// The network is no happens-before edge the race detector sees.
	var answer atomic.Pointer[[]byte]
	ended := make(chan error, 1)
	fake.ServeFetch(func(s *raftlayer.Stream) {
		defer s.Close()
		io.ReadFull(s, make([]byte, fetchRequestLen))
		s.Write(*answer.Load())
		s.Stream.Close()
		// Until the asker closes the connection.
		ctx := s.ConnectionContext()
		select {
		case <-ctx.Done():
			ended <- context.Cause(ctx)
		case <-time.After(30 * time.Second):
			ended <- errors.New("the connection is still open after 30 s")
		}
	})
	n := uint64(len(body))
	for name, a := range map[string][]byte{
		"another digest":       fetchAnswer(fetchFound, n, append(bytes.Clone(body[:len(body)-1]), 'x')),
		"runs past its length": fetchAnswer(fetchFound, n, append(bytes.Clone(body), 'x')),
		"another length":       fetchAnswer(fetchFound, n-1, body[:n-1]),
		"a garbled status":     {0xff, 0, 0},
	} {
		answer.Store(&a)
		err := lg.fetchOnce(tc.file.Members[2].Raft, d, n, 0)
		if !errors.Is(err, errFetchMalformed) {
			t.Fatalf("%s: fetch = %v, want malformed", name, err)
		}
		if err := <-ended; !connectionClosedBadFrame(err) {
			t.Fatalf("%s: the answering member's stream ended with %v, want its connection closed with code 3", name, err)
		}
		if lg.Payloads().Has(d) {
			t.Fatalf("%s: the asker kept the body", name)
		}
		if tmp, _ := os.ReadDir(lg.Payloads().tmp); len(tmp) != 0 {
			t.Fatalf("%s: the asker kept %d temp files", name, len(tmp))
		}
	}

	// Pushes of a body that is not the one the header names.
	for name, push := range map[string][]byte{
		"another digest":       append(fetchRequest{push: true, digest: d, length: n}.encode(), append(bytes.Clone(body[:n-1]), 'x')...),
		"runs past its length": append(fetchRequest{push: true, digest: d, length: n}.encode(), append(bytes.Clone(body), 'x')...),
		"cut short":            append(fetchRequest{push: true, digest: d, length: n}.encode(), body[:n/2]...),
	} {
		s, err := fake.DialFetch(leader.self.Raft, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.Write(push)
		s.Stream.Close()
		<-s.ConnectionContext().Done()
		if err := context.Cause(s.ConnectionContext()); !connectionClosedBadFrame(err) {
			t.Fatalf("a push whose body is %s: the connection ended with %v, want code 3", name, err)
		}
		if lg.Payloads().Has(d) {
			t.Fatalf("a push whose body is %s: the leader kept it", name)
		}
		if tmp, _ := os.ReadDir(lg.Payloads().tmp); len(tmp) != 0 {
			t.Fatalf("a push whose body is %s: the leader kept %d temp files", name, len(tmp))
		}
	}

	// The queue was not touched, and goes on.
	if lg.FSM.Len() != 0 {
		t.Fatalf("the queue holds %d messages", lg.FSM.Len())
	}
	commitBody(t, lg.Payloads(), body)
	if _, err := lg.Propose(t.Context(), streamedAdmitOf(d, body)); err != nil {
		t.Fatal(err)
	}

	// A body no member holds is named as such.
	answer.Store(&[]byte{fetchUnknown})
	go func() {
		for range ended {
		}
	}()
	follower := tc.nodes[0]
	if follower == leader {
		follower = tc.nodes[1]
	}
	lost := sha256.Sum256([]byte("nobody has this"))
	var missing *MissingBodyError
	if err := follower.Group("/jobs").fetchBody(lost, MaxInlineBody+1, 0); !errors.As(err, &missing) || missing.Digest != lost ||
		!strings.Contains(err.Error(), "corrupt store") {
		t.Fatalf("fetching a body no member holds: %v", err)
	}
}

// The leader pushes a streamed body before it proposes the ADMIT, and
// proposes once a quorum holds it: the follower then stores the ADMIT
// without fetching anything.
func TestTheLeaderPushesBodiesBeforeTheADMIT(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	g := leader.Group("/jobs")
	// One follower down: the other one's copy makes the quorum, so the
	// push to it must have ended before the ADMIT is proposed.
	followers := othersThan(tc.nodes, leader)
	followers[0].Close()
	tc.nodes = othersThan(tc.nodes, followers[0])
	follower := followers[1].Group("/jobs")
	body := bigBody(15)
	d := commitBody(t, g.Payloads(), body)
	res, err := g.Propose(t.Context(), streamedAdmitOf(d, body))
	if err != nil {
		t.Fatal(err)
	}
	waitApplied(t, follower.FSM, func() bool { _, ok := follower.FSM.Live(res.(AdmitResult).Seq); return ok })
	if got, err := readBody(follower.Payloads(), d); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the follower read %d bytes of the pushed body, %v", len(got), err)
	}
	if pushes, gets := follower.served.pushes.Load(), g.served.gets.Load(); pushes != 1 || gets != 0 {
		t.Fatalf("the follower took %d pushes and the leader served %d fetches; want 1 and 0", pushes, gets)
	}
	// The same body again: the follower has it, and says so at once.
	if _, err := g.Propose(t.Context(), streamedAdmitOf(commitBody(t, g.Payloads(), body), body)); err != nil {
		t.Fatal(err)
	}
	if gets := g.served.gets.Load(); gets != 0 {
		t.Fatalf("a body the follower held was fetched %d times", gets)
	}
}
