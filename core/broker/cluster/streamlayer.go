package cluster

import (
	"net"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/transport/raftlayer"
)

// streamLayer is a raftlayer.Group as hashicorp/raft's NetworkTransport
// wants it: Dial takes a raft.ServerAddress.
type streamLayer struct{ *raftlayer.Group }

func (s streamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.Group.Dial(string(address), timeout)
}

// Transport builds the Raft transport of one group over the node's Raft
// port: at most maxPool idle connections per member are kept, each RPC
// times out after timeout, and what the transport logs goes to log (nil:
// discarded).
//
// Pipelined replication is off (one append in flight per follower; each
// still carries every entry waiting, up to MaxAppendEntries). In
// hashicorp/raft v1.7.3 a follower's refused append ends the pipeline's
// response decoder, and one more pipelined send can then wait forever for
// it: replication to that follower stops and the leader's Shutdown hangs
// (TestRaftLeaderShutsDownAfterAFollowerRefusedAppends).
func Transport(g *raftlayer.Group, maxPool int, timeout time.Duration, log hclog.Logger) *raft.NetworkTransport {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:          streamLayer{g},
		MaxPool:         maxPool,
		MaxRPCsInFlight: 1,
		Timeout:         timeout,
		Logger:          log,
	})
}
