package weida_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// A requester given one member's URL follows NOT_LEADER to the leader
// (the fake cluster of redirect_test.go).

func TestRequestFollowsTheHintAndResendsThePayload(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 4)
	b.leads.Store(true)
	r := requester(t, trustOf(t, a, b), a.url)
	payload := []byte(strings.Repeat("job ", 1000))
	reply, err := r.Request(ctxFor(t), payload, 1<<20)
	if err != nil || string(reply) != string(payload) {
		t.Fatalf("request: %d bytes, %v; want the whole payload back from the leader", len(reply), err)
	}
	// The slot stays on the leader: the next request goes there at once.
	if _, err := r.Request(ctxFor(t), []byte("again"), 1024); err != nil || b.served.Load() != 2 {
		t.Fatalf("second request: %v, leader served %d", err, b.served.Load())
	}
}

func TestRequestFollowsAtMostTwoRedirects(t *testing.T) {
	a, b, c := newFakeMember(t), newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 1)
	b.setHint(c.url, 1)
	c.setHint(a.url, 1)
	r := requester(t, trustOf(t, a, b, c), a.url)
	_, err := r.Request(ctxFor(t), []byte("job"), 1024)
	var nl *weida.NotLeaderError
	if !errors.Is(err, weida.ErrRejected) || !errors.As(err, &nl) || nl.Leader != a.url {
		t.Fatalf("request: %v, want Rejected naming the third hint, %s", err, a.url)
	}
	if !strings.Contains(err.Error(), "2 redirects") {
		t.Fatalf("error %q does not say the cap", err)
	}
}

func TestRequestDiscardsAHintFromAnOlderTerm(t *testing.T) {
	a, b, stale, leader := newFakeMember(t), newFakeMember(t), newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 5)
	b.setHint(stale.url, 3) // older than the 5 already seen
	stale.leads.Store(true)
	a.setAnswer(leader.url) // the search asks the member the caller gave
	a.term.Store(6)
	leader.leads.Store(true)
	r := requester(t, trustOf(t, a, b, stale, leader), a.url)
	if _, err := r.Request(ctxFor(t), []byte("job"), 1024); err != nil {
		t.Fatal(err)
	}
	if leader.served.Load() != 1 || stale.served.Load() != 0 {
		t.Fatalf("served by the leader %d, by the stale hint %d; want 1 and 0", leader.served.Load(), stale.served.Load())
	}
}

func TestRequestRefusesAHintOutsideTrust(t *testing.T) {
	a, stranger := newFakeMember(t), newFakeMember(t)
	stranger.leads.Store(true)
	a.setHint(stranger.url, 1)
	r := requester(t, weida.TrustByAddress(), a.url) // trusts a's key, as its URL names it
	_, err := r.Request(ctxFor(t), []byte("job"), 1024)
	var nl *weida.NotLeaderError
	if !errors.Is(err, weida.ErrUntrusted) || !errors.As(err, &nl) || nl.Leader != stranger.url {
		t.Fatalf("request: %v, want Untrusted carrying the NOT_LEADER that named %s", err, stranger.url)
	}
	if stranger.served.Load() != 0 {
		t.Fatal("the request was sent to a key outside the trust")
	}
}

// A leader outside the trust reads the same whichever way it was named:
// here the refusal names none, and the leader query's answer names it.
func TestRequestRefusesALeaderQueryAnswerOutsideTrust(t *testing.T) {
	a, stranger := newFakeMember(t), newFakeMember(t)
	stranger.leads.Store(true)
	a.setAnswer(stranger.url)
	a.term.Store(3)
	r := requester(t, weida.TrustByAddress(), a.url)
	_, err := r.Request(ctxFor(t), []byte("job"), 1024)
	var nl *weida.NotLeaderError
	if !errors.Is(err, weida.ErrUntrusted) || !errors.As(err, &nl) || nl.Leader != stranger.url || nl.Term != 3 {
		t.Fatalf("request: %v, want Untrusted carrying a NOT_LEADER naming %s in term 3", err, stranger.url)
	}
	if a.asked.Load() == 0 || stranger.served.Load() != 0 {
		t.Fatalf("asked %d times, the stranger served %d; want the query asked and nothing sent outside the trust",
			a.asked.Load(), stranger.served.Load())
	}
}

func TestRequestWithoutALeaderRetriesUntilOneIsKnown(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	b.leads.Store(true)
	r := requester(t, trustOf(t, a, b), a.url)
	// a names no leader, neither in NOT_LEADER nor to the query, until it
	// was asked twice.
	go func() {
		for a.asked.Load() < 2 {
			select {
			case <-time.After(time.Millisecond):
			case <-ctxFor(t).Done():
				return
			}
		}
		a.setAnswer(b.url)
	}()
	if _, err := r.Request(ctxFor(t), []byte("job"), 1024); err != nil {
		t.Fatal(err)
	}
	if a.asked.Load() < 2 || b.served.Load() != 1 {
		t.Fatalf("asked %d times, leader served %d", a.asked.Load(), b.served.Load())
	}
}

func TestRequestWithoutALeaderExpiresAtTheDeadline(t *testing.T) {
	a := newFakeMember(t)
	r := requester(t, trustOf(t, a), a.url)
	ctx, cancel := context.WithTimeout(ctxFor(t), time.Second)
	defer cancel()
	_, err := r.Request(ctx, []byte("job"), 1024)
	if !errors.Is(err, weida.ErrExpired) || a.asked.Load() == 0 {
		t.Fatalf("request: %v after %d queries, want Expired after asking", err, a.asked.Load())
	}
	// The member said it knows no leader: the cluster has no quorum, and
	// the error says so (docs/CLUSTER.md §3).
	if !strings.Contains(err.Error(), "no quorum") {
		t.Fatalf("request: %v, want the reason to say no quorum", err)
	}
}

func TestStreamedRequestSurfacesTheLeader(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 2)
	b.leads.Store(true)
	r := requester(t, trustOf(t, a, b), a.url)
	out, reply, err := r.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("part of a stream"))
	_, _ = out.Finish()
	_, err = reply.Recv(ctxFor(t))
	var nl *weida.NotLeaderError
	if !errors.As(err, &nl) || nl.Leader != b.url || !strings.Contains(err.Error(), b.url) {
		t.Fatalf("streamed request: %v, want the error naming %s", err, b.url)
	}
	if b.served.Load() != 0 {
		t.Fatal("a streamed request was resent")
	}
}

// TestALeaderOutOfReachIsNotCalledNoQuorum: the member names a leader that
// cannot be reached. The search ends at the caller's SendTimeout, one
// round of leader queries (5 s per member) not running past it, and its
// reason says the leader was not found, not that there is no quorum.
func TestALeaderOutOfReachIsNotCalledNoQuorum(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setHint(b.url, 2)
	a.setAnswer(b.url)
	b.b.Close()
	const sendTimeout = 2 * time.Second
	rt := runtimeWith(t, weida.Config{SendTimeout: sendTimeout})
	r := rt.Requester(trustOf(t, a, b), fastRedial())
	if err := r.Connect(ctxFor(t), a.url); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err := r.Request(ctxFor(t), []byte("job"), 1024)
	took := time.Since(began)
	if !errors.Is(err, weida.ErrExpired) || strings.Contains(err.Error(), "no quorum") {
		t.Fatalf("request: %v; want Expired, not naming a lack of quorum", err)
	}
	if took > sendTimeout+4*time.Second {
		t.Fatalf("the search took %v, past its %v deadline by more than one query", took, sendTimeout)
	}
}
