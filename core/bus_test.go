package weida_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// busNode is one bus member in its own runtime.
type busNode struct {
	rt  *weida.Runtime
	m   *weida.BusMember
	url string
}

// busJoin binds a runtime configured by cfg and registers a member at /bus.
func busJoin(t *testing.T, cfg weida.Config, opts ...weida.EndpointOption) *busNode {
	t.Helper()
	rt := runtimeWith(t, cfg)
	b := bindLoopback(t, rt)
	m, err := b.Bus("/bus", weida.TrustByAddress(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &busNode{rt: rt, m: m, url: b.URL("/bus")}
}

// busMesh starts n members, each connected to every other one.
func busMesh(t *testing.T, n int, opts ...weida.EndpointOption) []*busNode {
	t.Helper()
	var nodes []*busNode
	for range n {
		nodes = append(nodes, busJoin(t, weida.Config{}, opts...))
	}
	for _, from := range nodes {
		for _, to := range nodes {
			if from != to {
				if err := from.m.Connect(ctxFor(t), to.url); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return nodes
}

// busRoundTrip has every member send its name once and checks that each
// one receives exactly the others' names: n·(n−1) deliveries.
func busRoundTrip(t *testing.T, nodes []*busNode, round string) {
	t.Helper()
	for i, n := range nodes {
		reached, err := n.m.Send(ctxFor(t), fmt.Appendf(nil, "%s from %d", round, i))
		if err != nil || reached != len(nodes)-1 {
			t.Fatalf("member %d send: reached %d, %v; want %d", i, reached, err, len(nodes)-1)
		}
	}
	for i, n := range nodes {
		var got, want []string
		for j := range nodes {
			if j != i {
				want = append(want, fmt.Sprintf("%s from %d", round, j))
				body, _, err := n.m.Recv(ctxFor(t), 64)
				if err != nil {
					t.Fatalf("member %d recv: %v", i, err)
				}
				got = append(got, string(body))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("member %d received %q, want the others' %q (never its own)", i, got, want)
		}
	}
}

// busGoroutineBaseline returns a check that the goroutine count came back
// to its value at the call. Goroutines end asynchronously after Shutdown
// and announce it to nobody, so the check polls, bounded.
func busGoroutineBaseline(t *testing.T) func() {
	before := runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Fatalf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:n])
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestBusEveryOtherMemberGetsEachMessage(t *testing.T) {
	nodes := busMesh(t, 3)
	for i, n := range nodes {
		if c := n.m.PeerCount(); c != 2 {
			t.Fatalf("member %d peer count %d, want 2", i, c)
		}
	}
	busRoundTrip(t, nodes, "round 1")
	busRoundTrip(t, nodes, "round 2")
	for i, n := range nodes {
		if d := n.m.Dropped(); d != 0 {
			t.Fatalf("member %d dropped %d", i, d)
		}
	}
}

func TestBusDeadMemberIsPrunedOthersContinue(t *testing.T) {
	nodes := busMesh(t, 3)
	busRoundTrip(t, nodes, "all alive")

	survivors := nodes[:2]
	var events []*weida.PeerEvents
	for _, n := range survivors {
		events = append(events, n.m.Events())
	}
	nodes[2].rt.Shutdown()
	for i, n := range survivors {
		if lost := nextEvent(t, events[i], weida.EventLost); lost.URL != nodes[2].url {
			t.Fatalf("member %d lost %q, want the dead member %q", i, lost.URL, nodes[2].url)
		}
		if c := n.m.PeerCount(); c != 1 {
			t.Fatalf("member %d peer count %d after a member died, want 1", i, c)
		}
	}
	busRoundTrip(t, survivors, "survivors")
}

func TestBusSlowMemberCostsDropsNotSenderTime(t *testing.T) {
	fast := busJoin(t, weida.Config{})
	// The slow member never reads and grants a small window, so the
	// sender's writer for it stalls after the first copy's first bytes.
	slow := busJoin(t, weida.Config{Limits: weida.Limits{StreamReceiveWindow: 64 << 10, ConnectionReceiveWindow: 256 << 10}})
	if err := fast.m.Connect(ctxFor(t), slow.url); err != nil {
		t.Fatal(err)
	}

	const payload = 1 << 20
	budget := weida.DefaultSubscriberBufferBytes / payload
	done := make(chan int, 1)
	go func() {
		// Send never waits for a member: this loop ends at the first drop.
		for sent := 1; ; sent++ {
			reached, err := fast.m.Send(ctxFor(t), make([]byte, payload))
			if err != nil || reached == 0 {
				done <- sent
				return
			}
		}
	}()
	var firstDrop int
	select {
	case firstDrop = <-done:
	case <-ctxFor(t).Done():
		t.Fatal("a slow member stalled the sender")
	}
	// The byte budget binds long before the message count (EndpointQueue).
	if firstDrop > budget+1 {
		t.Fatalf("first drop at send %d, want by %d (an %d-byte budget of %d-byte copies)",
			firstDrop, budget+1, weida.DefaultSubscriberBufferBytes, payload)
	}
	if d := fast.m.Dropped(); d != 1 {
		t.Fatalf("dropped %d, want 1", d)
	}
}

func TestBusPayloadAboveTheBudgetIsRefused(t *testing.T) {
	a, b := busJoin(t, weida.Config{}), busJoin(t, weida.Config{})
	if err := a.m.Connect(ctxFor(t), b.url); err != nil {
		t.Fatal(err)
	}
	reached, err := a.m.Send(ctxFor(t), make([]byte, weida.DefaultSubscriberBufferBytes+1))
	if !errors.Is(err, weida.ErrLimitExceeded) || reached != 0 {
		t.Fatalf("oversize send: reached %d, %v; want LimitExceeded", reached, err)
	}
	if d := a.m.Dropped(); d != 0 {
		t.Fatalf("an oversize body charged %d drops, want none", d)
	}
	reached, err = a.m.Send(ctxFor(t), make([]byte, weida.DefaultSubscriberBufferBytes))
	if err != nil || reached != 1 {
		t.Fatalf("a body at the budget: reached %d, %v", reached, err)
	}
	if body, _, err := b.m.Recv(ctxFor(t), weida.DefaultSubscriberBufferBytes); err != nil || len(body) != weida.DefaultSubscriberBufferBytes {
		t.Fatalf("received %d bytes, %v", len(body), err)
	}
}

func TestBusWithoutMembersReachesNobody(t *testing.T) {
	a := busJoin(t, weida.Config{})
	if reached, err := a.m.Send(ctxFor(t), []byte("anyone?")); err != nil || reached != 0 {
		t.Fatalf("send with no member: reached %d, %v; want 0, nil", reached, err)
	}
	if a.m.Path() != "/bus" {
		t.Fatalf("path %q", a.m.Path())
	}
	if _, err := a.rt.Listener().Bus("/bus", weida.TrustByAddress()); !errors.Is(err, weida.ErrAlreadyRegistered) {
		t.Fatalf("second member at the path: %v, want AlreadyRegistered", err)
	}
	_ = a.m.Close()
	if _, err := a.m.Send(ctxFor(t), []byte("closed")); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("send after close: %v, want Canceled", err)
	}
}

func TestBusGoroutinesEndAfterShutdown(t *testing.T) {
	check := busGoroutineBaseline(t)
	// Members shut down one after another, so the later ones first see the
	// earlier ones vanish. They must not redial: a slot already redialling
	// when its own runtime shuts down keeps retrying (the dialer does not
	// stop redials on Runtime.Shutdown; reported to the foundation).
	nodes := busMesh(t, 3, weida.WithReconnect(weida.NeverReconnect()))
	busRoundTrip(t, nodes, "before shutdown")
	for _, n := range nodes {
		n.rt.Shutdown()
	}
	check()
}
