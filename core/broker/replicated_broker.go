package broker

import (
	"context"
	"io"
	"path/filepath"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/errs"
)

// startCluster opens this member's Raft groups (Config.Cluster) and gives
// each replicated queue its keeper.
func (b *Broker) startCluster(keepers []openedKeeper) error {
	cc := b.cfg.Cluster
	if cc == nil {
		return nil
	}
	node, err := cluster.StartNode(cluster.NodeConfig{File: cc.File, Identity: cc.Identity,
		DataDir: filepath.Clean(b.cfg.DataDir), Raft: cc.Raft, Log: b.cfg.Logger, RaftConn: cc.RaftConn,
		RaftLog: cc.RaftLog, RaftLogLevel: cc.RaftLogLevel})
	if err != nil {
		return errs.Wrap(errs.KindRuntime, err, "broker: the cluster node did not start")
	}
	b.node = node
	for i, qc := range b.cfg.Queues {
		if !qc.replicated() {
			continue
		}
		g := node.Group(qc.Path)
		keepers[i] = openedKeeper{keeper: newRaftKeeper(g, func(err error) {
			if b.cfg.OnError != nil {
				b.cfg.OnError(qc.Path, err)
			}
		})}
	}
	return nil
}

// replicate links a replicated queue to its group: the loop follows the
// group's leadership, and SUBSCRIBE and CREDIT reach it only while this
// node leads (else they are stopped with NOT_LEADER).
func (b *Broker) replicate(q *queue, port *weida.QueuePort) {
	k, ok := q.keep.(*raftKeeper)
	if !ok {
		return
	}
	q.repl = &replication{g: k.g, keep: k, held: make(map[uint64]*message), admitting: make(map[weida.PortConn]int)}
	port.SetLeaderGate(k.g.IsLeader)
}

// serveLeaderQueries answers the reserved leader query (docs/CLUSTER.md
// §5) until the broker closes: the request payload names a queue path;
// the answer is its leader's URL and term, NOT_LEADER without a leader
// while none is known, or UNKNOWN_ENDPOINT for a path that is not a
// replicated queue of this cluster.
func (b *Broker) serveLeaderQueries() {
	for {
		select {
		case <-b.ctx.Done():
			return
		case ev := <-b.leader.Events():
			switch ev.Kind {
			case weida.PortExchange:
				go b.answerLeaderQuery(ev.Exchange)
			case weida.PortTransfer:
				_ = ev.Transfer.Close()
			}
		}
	}
}

// maxLeaderQuery bounds the request of a leader query: a queue path.
const maxLeaderQuery = 1024

// leaderQueryTimeout bounds how long a leader query's request is read: a
// client that never ends it is closed NO_REPLY, not waited for.
const leaderQueryTimeout = 10 * time.Second

func (b *Broker) answerLeaderQuery(ex *weida.IncomingExchange) {
	ctx, cancel := context.WithTimeout(b.ctx, leaderQueryTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = ex.Close() })
	path, err := io.ReadAll(io.LimitReader(ex.Request(), maxLeaderQuery+1))
	if !stop() {
		return // closed: the request took too long, or the broker is closing
	}
	if err != nil || len(path) > maxLeaderQuery {
		_ = ex.Refuse()
		return
	}
	q := b.byPath[string(path)]
	if q == nil || q.repl == nil {
		_ = ex.RefuseUnknownEndpoint()
		return
	}
	url, term, known := q.repl.g.Leader()
	if !known {
		_ = ex.RefuseNotLeader("", term)
		return
	}
	_ = ex.AnswerLeader(url, term)
}

// ClusterStats is a replicated queue's group as this node sees it.
type ClusterStats struct {
	cluster.GroupStats
	// Members is the cluster's membership, as its file gives it.
	Members []cluster.Member
}

func (q *queue) clusterStats() *ClusterStats {
	if q.repl == nil {
		return nil
	}
	return &ClusterStats{GroupStats: q.repl.g.Stats(), Members: q.repl.g.Members()}
}
