package raftlayer

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

func TestTheResetKeyFollowsTheMembersKey(t *testing.T) {
	tn := newTestNodes(t, 2)
	a1, err := statelessResetKey(tn[0].id)
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := statelessResetKey(tn[0].id)
	b, _ := statelessResetKey(tn[1].id)
	if *a1 != *a2 {
		t.Fatal("two derivations from one key differ: a restarted member could not reset its old connections")
	}
	if *a1 == *b {
		t.Fatal("two members' keys gave one reset key")
	}
}

// A member SIGKILLed (no CONNECTION_CLOSE reaches its peers) and started
// again on the same address with the same key resets the connection a
// peer holds from its previous run at the peer's next packet, whichever
// side dialled it. Before, the peer kept that connection until its 30 s
// idle timeout and sent Raft RPCs into it, each waiting out its 10 s
// timeout: the restarted member heard nothing from the leader, and the
// failover after the next kill waited for it (issue 19's ~10 s outliers).
func TestARestartedMemberResetsItsPeersOldConnection(t *testing.T) {
	const peer, member = 0, 1
	for _, tc := range []struct {
		name        string
		peerDialled bool // the peer dialled the member, or the member the peer
	}{
		{"the peer had dialled it", true},
		{"it had dialled the peer", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn := newTestNodes(t, 2)
			members := membersOf(tn)
			peerNode := serve(t, tn[peer], members, 7, nil)
			before := serve(t, tn[member], members, 7, nil)
			peerGroup, beforeGroup := group(t, peerNode, 1), group(t, before, 1)
			if tc.peerDialled {
				roundTrip(t, peerGroup, beforeGroup, tn[member].addr)
			} else {
				roundTrip(t, beforeGroup, peerGroup, tn[peer].addr)
			}
			old := connOf(t, peerNode, tn[member].id.Fingerprint())

			// A crash: the socket goes first, so no CONNECTION_CLOSE leaves.
			_ = tn[member].pc.Close()
			before.Close()
			pc, err := net.ListenPacket("udp", tn[member].addr)
			if err != nil {
				t.Fatalf("listening again on %s: %v", tn[member].addr, err)
			}
			after := serve(t, testNode{id: tn[member].id, pc: pc, addr: tn[member].addr}, members, 7, nil)
			afterGroup := group(t, after, 1)

			// The peer's next stream still goes out on the old connection
			// (nothing told it otherwise); its first packet draws the reset.
			if s, err := peerGroup.Dial(tn[member].addr, 5*time.Second); err == nil {
				defer s.Close()
			}
			<-old.Context().Done() // without a reset: the idle timeout, 30 s
			var reset *quic.StatelessResetError
			if cause := context.Cause(old.Context()); !errors.As(cause, &reset) {
				t.Fatalf("the old connection ended with %v, want a stateless reset", cause)
			}
			roundTrip(t, peerGroup, afterGroup, tn[member].addr)
		})
	}
}

// connOf is the connection node n's Dial uses toward the member with key.
func connOf(t *testing.T, n *Node, key identity.Fingerprint) *quic.Conn {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	c := n.conns[key]
	if c == nil {
		t.Fatalf("no connection to %s", key)
	}
	return c
}
