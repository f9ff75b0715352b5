package cluster

import (
	"context"
	"io"
	"testing"
	"time"
)

// A member's Raft stream that carries garbage instead of hashicorp's RPCs
// is closed by the receiver, and the group goes on committing: a
// malformed Raft-transport frame costs that stream only, never the queue.
func TestAMalformedRaftStreamIsClosedAndTheGroupGoesOn(t *testing.T) {
	tc := startCluster(t, 3, "/jobs")
	tc.waitFor(t, "a leader for /jobs", func() bool { return tc.leaderOf("/jobs", tc.nodes...) != nil })
	leader := tc.leaderOf("/jobs", tc.nodes...)
	var follower *Node
	for _, n := range tc.nodes {
		if n != leader {
			follower = n
			break
		}
	}
	// The leader's own group port dials the follower, as Raft does, and
	// sends a stream of bytes no RPC decodes.
	conn, err := leader.Group("/jobs").port.Dial(follower.self.Raft, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(0xc1) // never valid msgpack
	}
	if _, err := conn.Write(garbage); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(conn); err != nil && !isClosed(err) {
		t.Fatalf("the follower did not close the malformed stream: %v", err)
	}

	// The queue is untouched: the leader still commits, and the follower
	// applies it.
	res, err := leader.Group("/jobs").Propose(context.Background(), admitInline("after garbage"))
	if err != nil || res != (AdmitResult{Seq: 1}) {
		t.Fatalf("propose after the malformed stream: %v, %v", res, err)
	}
	fsm := follower.Group("/jobs").FSM
	deadline := time.After(30 * time.Second)
	for {
		ch, _ := fsm.Changed()
		if m, ok := fsm.Live(1); ok && string(m.Body) == "after garbage" {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("the follower never applied the admission made after the malformed stream")
		}
	}
}

// isClosed reports an error that means the peer ended the stream (a reset
// or a close), as opposed to the read deadline passing.
func isClosed(err error) bool {
	type timeout interface{ Timeout() bool }
	if t, ok := err.(timeout); ok && t.Timeout() {
		return false
	}
	return true
}
