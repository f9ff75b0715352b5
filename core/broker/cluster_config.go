package broker

import (
	"io"
	"net"

	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// ClusterConfig makes a broker one member of a replicated cluster
// (docs/CLUSTER.md): every queue of File is served replicated on a Raft
// group of all the members, beside Config.Queues.
type ClusterConfig struct {
	// File is the cluster file every member reads (cluster.ReadFile).
	File *cluster.File
	// Identity is this node's key. It must be a member's, and the key the
	// broker's runtime presents to clients (the members' URLs name it).
	Identity *identity.Identity
	// RaftConn, when set, is this member's Raft UDP socket, bound already
	// (tests bind port 0 before they write the file); else the broker binds
	// the member's Raft address.
	RaftConn net.PacketConn
	// Raft tunes every group's timings; nil is hashicorp/raft's defaults.
	Raft *raft.Config
	// RaftLog, when set, receives hashicorp/raft's own log lines at
	// RaftLogLevel ("trace", "debug", "info" by default, "warn", "error"),
	// one logger per queue named "raft <path>": what to read when a
	// failover is slow. The broker's Logger still hears leadership changes.
	RaftLog      io.Writer
	RaftLogLevel string
}

// withClusterQueues appends the cluster file's queues to c.Queues, marked
// replicated, and checks what a cluster needs: a data directory, this
// node's membership, and no path configured both ways.
func (c Config) withClusterQueues() (Config, error) {
	if c.Cluster == nil {
		return c, nil
	}
	cc := c.Cluster
	if cc.File == nil || cc.Identity == nil {
		return c, errs.New(errs.KindRuntime, "broker config: a cluster needs its file and this node's identity")
	}
	if _, err := cc.File.Self(cc.Identity.Fingerprint()); err != nil {
		return c, errs.Wrap(errs.KindRuntime, err, "broker config")
	}
	if c.DataDir == "" {
		return c, errs.New(errs.KindRuntime, "broker config: a cluster member needs a data directory (its Raft logs and bodies live there)")
	}
	queues := make([]QueueConfig, 0, len(c.Queues)+len(cc.File.Queues))
	queues = append(queues, c.Queues...)
	for _, q := range cc.File.Queues {
		d := Written
		if q.Flushed {
			d = Flushed
		}
		queues = append(queues, QueueConfig{Path: q.Path, Durability: d, replicas: cc.File.Quorum()})
	}
	c.Queues = queues
	if c.Access == nil {
		c.Access = cc.File.Access
	}
	return c, nil
}

// replicated reports whether the queue is served by a Raft group.
func (q QueueConfig) replicated() bool { return q.replicas > 0 }
