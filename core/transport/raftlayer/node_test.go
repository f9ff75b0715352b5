package raftlayer

import (
	"github.com/weida-go/weida/internal/testlog"

	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

type testNode struct {
	id   *identity.Identity
	pc   net.PacketConn
	addr string
}

func newTestNodes(t *testing.T, n int) []testNode {
	t.Helper()
	nodes := make([]testNode, n)
	for i := range nodes {
		id, err := identity.Generate()
		if err != nil {
			t.Fatal(err)
		}
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = testNode{id: id, pc: pc, addr: pc.LocalAddr().String()}
	}
	return nodes
}

func membersOf(nodes []testNode) map[string]identity.Fingerprint {
	m := make(map[string]identity.Fingerprint, len(nodes))
	for _, n := range nodes {
		m[n.addr] = n.id.Fingerprint()
	}
	return m
}

func serve(t *testing.T, tn testNode, members map[string]identity.Fingerprint, digest byte, log io.Writer) *Node {
	t.Helper()
	cfg := Config{Identity: tn.id, Members: members, Digest: [32]byte{digest}}
	if log != nil {
		cfg.Log = slog.New(slog.NewTextHandler(log, nil))
	}
	n, err := Serve(tn.pc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func group(t *testing.T, n *Node, id byte) *Group {
	t.Helper()
	g, err := n.Group(GroupID{id})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// roundTrip dials from's group toward to, sends ping and expects pong.
func roundTrip(t *testing.T, from *Group, to *Group, toAddr string) {
	t.Helper()
	accepted := make(chan error, 1)
	go func() {
		c, err := to.Accept()
		if err == nil {
			buf := make([]byte, 4)
			if _, err = io.ReadFull(c, buf); err == nil && string(buf) != "ping" {
				err = errors.New("read " + string(buf))
			}
			if err == nil {
				_, err = c.Write([]byte("pong"))
			}
			c.Close()
		}
		accepted <- err
	}()
	c, err := from.Dial(toAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}

func TestGroupsShareOneConnectionPerPair(t *testing.T) {
	tn := newTestNodes(t, 3)
	members := membersOf(tn)
	a, b := serve(t, tn[0], members, 7, nil), serve(t, tn[1], members, 7, nil)
	serve(t, tn[2], members, 7, nil)
	a1, a2, b1, b2 := group(t, a, 1), group(t, a, 2), group(t, b, 1), group(t, b, 2)
	roundTrip(t, a1, b1, tn[1].addr)
	roundTrip(t, a2, b2, tn[1].addr)
	roundTrip(t, b1, a1, tn[0].addr) // the other way, over the connection a dialled
	a.mu.Lock()
	aConns := len(a.conns)
	a.mu.Unlock()
	b.mu.Lock()
	bConns := len(b.conns)
	b.mu.Unlock()
	if aConns != 1 || bConns != 1 {
		t.Fatalf("connections: a holds %d, b %d; want one each for the pair", aConns, bConns)
	}
}

func TestAStreamForAnUnknownGroupIsReset(t *testing.T) {
	tn := newTestNodes(t, 3)
	members := membersOf(tn)
	a, b := serve(t, tn[0], members, 7, nil), serve(t, tn[1], members, 7, nil)
	group(t, b, 1)
	c, err := group(t, a, 9).Dial(tn[1].addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Read(make([]byte, 1))
	var se *quic.StreamError
	if !errors.As(err, &se) || se.ErrorCode != codeUnknownGroup {
		t.Fatalf("read on a stream for an unknown group: %v, want a reset with code %d", err, codeUnknownGroup)
	}
}

func TestOnlyMembersMayConnect(t *testing.T) {
	tn := newTestNodes(t, 4)
	members := membersOf(tn[:3])
	b := serve(t, tn[1], members, 7, nil)
	bg := group(t, b, 1)
	// The stranger believes itself a member; the cluster does not list it.
	strangerView := map[string]identity.Fingerprint{tn[3].addr: tn[3].id.Fingerprint(), tn[1].addr: tn[1].id.Fingerprint()}
	stranger := serve(t, tn[3], strangerView, 7, nil)
	if _, err := group(t, stranger, 1).Dial(tn[1].addr, 5*time.Second); err == nil {
		t.Fatal("a key outside the member list connected")
	}
	// A node whose own key is not a member refuses to start.
	if _, err := Listen("127.0.0.1:0", Config{Identity: tn[3].id, Members: members}); err == nil ||
		!strings.Contains(err.Error(), tn[3].id.Fingerprint().String()+" is not among the 3 members") {
		t.Fatalf("Listen as a non-member: %v", err)
	}
	// A member whose address answers with another key is untrusted.
	wrong := membersOf(tn[:3])
	wrong[tn[1].addr] = tn[2].id.Fingerprint()
	a := serve(t, tn[0], wrong, 7, nil)
	_, err := group(t, a, 1).Dial(tn[1].addr, 5*time.Second)
	var untrusted *identity.UntrustedError
	if !errors.As(err, &untrusted) || untrusted.Presented != tn[1].id.Fingerprint() {
		t.Fatalf("a member answering with another key: %v", err)
	}
	select {
	case c := <-bg.accept:
		t.Fatalf("b accepted a stream from %v", c.RemoteAddr())
	default:
	}
}

func TestMembersThatReadDifferentFilesRefuseEachOther(t *testing.T) {
	tn := newTestNodes(t, 3)
	members := membersOf(tn)
	blog := testlog.New("another cluster file")
	a, b := serve(t, tn[0], members, 7, nil), serve(t, tn[1], members, 8, blog)
	group(t, b, 1)
	// A member with another file redials again and again: the refusing
	// side says so once per interval, not once per dial.
	const dials = 5
	ag := group(t, a, 1)
	for range dials {
		_, err := ag.Dial(tn[1].addr, 5*time.Second)
		if err == nil || !strings.Contains(err.Error(), "read another cluster file") ||
			!strings.Contains(err.Error(), "digest 08") || !strings.Contains(err.Error(), "ours 07") {
			t.Fatalf("dialling a member with another file: %v", err)
		}
	}
	select {
	case <-blog.Seen():
	case <-time.After(10 * time.Second):
		t.Fatalf("the refused side logged nothing: %q", blog.String())
	}
	b.Close() // every refusal handled and logged (or held back)
	if !strings.Contains(blog.String(), tn[0].id.Fingerprint().String()) {
		t.Fatalf("the log does not name the member: %s", blog.String())
	}
	if n := strings.Count(blog.String(), "another cluster file"); n != 1 {
		t.Fatalf("%d refusals logged %d lines within one interval, want 1:\n%s", dials, n, blog.String())
	}
}

// Refusal lines are bounded per member: one member's redials neither
// hide another's refusal nor pass more than one line per interval, and
// the next line counts those held back.
func TestRefusalLinesAreBoundedPerMember(t *testing.T) {
	clock := time.Unix(1000, 0)
	gates := peerGates{now: func() time.Time { return clock }}
	a, b := identity.Fingerprint{1}, identity.Fingerprint{2}
	for i := range 5 {
		if ok, _ := gates.allow(a); ok != (i == 0) {
			t.Fatalf("refusal %d of a: logged=%v", i+1, ok)
		}
	}
	if ok, held := gates.allow(b); !ok || held != 0 {
		t.Fatalf("b's first refusal: logged=%v held=%d, want true, 0", ok, held)
	}
	clock = clock.Add(refusalLogInterval)
	if ok, held := gates.allow(a); !ok || held != 4 {
		t.Fatalf("a's next interval: logged=%v held=%d, want true, 4", ok, held)
	}
}

// A fetch stream reaches the group's fetch handler, which knows the key
// at the other end, never Accept; without a handler it is reset; a
// handler may close the whole connection of a member that misbehaves.
func TestFetchStreamsReachTheirHandler(t *testing.T) {
	tn := newTestNodes(t, 3)
	members := membersOf(tn)
	a, b := serve(t, tn[0], members, 7, nil), serve(t, tn[1], members, 7, nil)
	ag, bg := group(t, a, 1), group(t, b, 1)
	s, err := ag.DialFetch(tn[1].addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Read(make([]byte, 1))
	var se *quic.StreamError
	if !errors.As(err, &se) || se.ErrorCode != codeUnknownGroup {
		t.Fatalf("a fetch stream with no handler: %v, want a reset with code %d", err, codeUnknownGroup)
	}
	peers := make(chan identity.Fingerprint, 1)
	bg.ServeFetch(func(s *Stream) {
		peers <- s.Peer()
		buf := make([]byte, 4)
		if _, err := io.ReadFull(s, buf); err == nil && string(buf) == "ping" {
			s.Write([]byte("pong"))
			s.Close()
			return
		}
		s.CloseConnection("not a ping")
	})
	s, err = ag.DialFetch(tn[1].addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s.Peer() != tn[1].id.Fingerprint() {
		t.Fatalf("the dialler's stream names %s", s.Peer())
	}
	s.Write([]byte("ping"))
	if got, err := io.ReadAll(s); err != nil || string(got) != "pong" {
		t.Fatalf("read %q, %v", got, err)
	}
	if p := <-peers; p != tn[0].id.Fingerprint() {
		t.Fatalf("the handler saw %s, want the dialler's key", p)
	}
	select {
	case c := <-bg.accept:
		t.Fatalf("a fetch stream reached Accept: %v", c.RemoteAddr())
	default:
	}
	s, err = ag.DialFetch(tn[1].addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("pang"))
	<-peers
	<-s.ConnectionContext().Done()
	var ae *quic.ApplicationError
	if err := context.Cause(s.ConnectionContext()); !errors.As(err, &ae) || ae.ErrorCode != closeBadFrame {
		t.Fatalf("the connection ended with %v, want code %d", err, closeBadFrame)
	}
	// The next stream redials.
	roundTrip(t, ag, bg, tn[1].addr)
}

func TestAStreamOfAnUnknownKindIsReset(t *testing.T) {
	tn := newTestNodes(t, 3)
	members := membersOf(tn)
	a, b := serve(t, tn[0], members, 7, nil), serve(t, tn[1], members, 7, nil)
	group(t, b, 1)
	s, err := group(t, a, 1).dial(KindFetch+1, tn[1].addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Read(make([]byte, 1))
	var se *quic.StreamError
	if !errors.As(err, &se) || se.ErrorCode != codeBadPreamble {
		t.Fatalf("a stream of an unknown kind: %v, want a reset with code %d", err, codeBadPreamble)
	}
}
