package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/guarantee"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
)

// weidaReplicated is weida's broker replicated three ways: three brokers
// in this process, each on its own runtime, binding, Raft socket and data
// directory, serving one queue of a cluster file (hashicorp/raft's default
// timings, as `weida broker --cluster` runs). Producers dial the queue's
// leader and take the confirm on the exchange's reply, which certifies
// Replicated once a quorum holds the message (at the queue's durability).
type weidaReplicated struct {
	// flushed makes the queue Flushed (every member fsyncs before it
	// counts towards the quorum); else Written.
	flushed bool
}

// clusterQueuePath is the replicated queue's path.
const clusterQueuePath = "/queue"

// clusterQueueBytes bounds each member's held bytes above what a
// repetition publishes (clusterRepBytes, without a consumer), so no
// publish is refused for room.
const clusterQueueBytes = 256 << 20

// Name implements system.QueueSystem.
func (q weidaReplicated) Name() string { return "weida replicated " + q.durability().String() }

func (q weidaReplicated) durability() broker.Durability {
	if q.flushed {
		return broker.Flushed
	}
	return broker.Written
}

// Replicas says this stack keeps every message on three nodes.
func (weidaReplicated) Replicas() int { return clusterNodes }

// Available implements system.QueueSystem: the brokers are embedded.
func (weidaReplicated) Available() string { return "" }

// weidaMember is one broker of the cluster.
type weidaMember struct {
	rt      *weida.Runtime
	binding *weida.Binding
	broker  *broker.Broker
	served  chan struct{} // closed when Serve returned
}

// weidaCluster is three running brokers; Addr is the queue leader's URL.
type weidaCluster struct {
	members []*weidaMember
	// raftConns are the members' Raft sockets: a broker closes the one it
	// was handed, Close those of a set-up that failed before.
	raftConns []net.PacketConn
	leader    string
}

func (c *weidaCluster) Addr() string { return c.leader }

func (c *weidaCluster) Close() error {
	for _, m := range c.members {
		if m.broker != nil {
			m.broker.Close()
			<-m.served
		}
		m.rt.Shutdown()
	}
	for _, pc := range c.raftConns {
		_ = pc.Close()
	}
	return nil
}

// StartQueue implements system.QueueSystem. The cluster file names every
// member's client and Raft ports, so each member binds both before the
// file is written and its broker started.
func (q weidaReplicated) StartQueue(ctx context.Context, dir string, _ int) (system.Server, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterFormTime)
	defer cancel()
	c := &weidaCluster{}
	ids, err := q.bindMembers(c)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("weida replicated: %w", err)
	}
	file, err := c.clusterFile(q.durability())
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("weida replicated: the cluster file: %w", err)
	}
	for i, m := range c.members {
		cfg := broker.Config{DataDir: filepath.Join(dir, fmt.Sprintf("n%d", i)), QueueBytes: clusterQueueBytes,
			Cluster: &broker.ClusterConfig{File: file, Identity: ids[i], RaftConn: c.raftConns[i]}}
		if want := broker.RuntimeConfig(weida.Config{}, cfg).Offer; want != m.rt.Offered() {
			err = fmt.Errorf("member %d's runtime offers %v, the broker's configuration %v", i, m.rt.Offered(), want)
		} else if m.broker, err = broker.New(m.rt, cfg); err != nil {
			err = fmt.Errorf("member %d: %w", i, err)
		}
		if err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("weida replicated: %w", err)
		}
		m.served = make(chan struct{})
		go func() {
			defer close(m.served)
			_ = m.broker.Serve(context.Background()) // until Close
		}()
	}
	if c.leader, err = c.awaitLeader(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("weida replicated: %w", err)
	}
	return c, nil
}

// bindMembers makes each member's identity, runtime (offering what its
// broker will: Replicated by a quorum of 2 at the queue's durability),
// binding and Raft socket, all of them c's to close.
func (q weidaReplicated) bindMembers(c *weidaCluster) ([]*weida.Identity, error) {
	offer := guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: clusterNodes/2 + 1, Durability: guarantee.Written}
	if q.flushed {
		offer.Durability = guarantee.Flushed
	}
	var ids []*weida.Identity
	for range clusterNodes {
		id, err := weida.GenerateIdentity()
		if err != nil {
			return nil, err
		}
		rt, err := weida.NewRuntime(weida.Config{ServesQueues: true, Offer: offer})
		if err != nil {
			return nil, err
		}
		m := &weidaMember{rt: rt}
		c.members = append(c.members, m)
		if m.binding, err = rt.Listener().BindQUIC("127.0.0.1:0", id); err != nil {
			return nil, err
		}
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("binding a Raft socket: %w", err)
		}
		ids, c.raftConns = append(ids, id), append(c.raftConns, pc)
	}
	return ids, nil
}

// clusterFile writes and parses the file every member reads: its members
// and the one queue at d.
func (c *weidaCluster) clusterFile(d broker.Durability) (*cluster.File, error) {
	type member struct {
		URL  string `json:"url"`
		Raft string `json:"raft"`
	}
	type queue struct {
		Path       string `json:"path"`
		Durability string `json:"durability"`
	}
	var doc struct {
		Members []member `json:"members"`
		Queues  []queue  `json:"queues"`
	}
	for i, m := range c.members {
		doc.Members = append(doc.Members, member{URL: strings.TrimSuffix(m.binding.URL("/"), "/"),
			Raft: c.raftConns[i].LocalAddr().String()})
	}
	doc.Queues = []queue{{Path: clusterQueuePath, Durability: d.String()}}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return cluster.Parse(raw)
}

// awaitLeader waits until a member leads the queue and every follower has
// applied what it had committed, returning its URL with the queue's path.
func (c *weidaCluster) awaitLeader(ctx context.Context) (string, error) {
	var leader string
	err := pollUntil(ctx, func() (bool, error) {
		var stats []*broker.ClusterStats
		lead := -1
		for i, m := range c.members {
			s, err := m.broker.Stats(ctx, clusterQueuePath)
			if err != nil {
				return false, fmt.Errorf("member %d's stats: %w", i, err)
			}
			if s.Cluster == nil {
				return false, fmt.Errorf("member %d serves %s unreplicated", i, clusterQueuePath)
			}
			if s.Cluster.IsLeader {
				lead = i
			}
			stats = append(stats, s.Cluster)
		}
		if lead < 0 {
			return false, nil
		}
		for i, s := range stats {
			if i != lead && (s.LastContact < 0 || s.Term != stats[lead].Term || s.AppliedIndex < stats[lead].CommitIndex) {
				return false, nil
			}
		}
		leader = c.members[lead].binding.URL(clusterQueuePath)
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("waiting for the queue's leader and replicas: %w", err)
	}
	return leader, nil
}

// DialProducer implements system.QueueSystem: a Requester in its own
// runtime, each confirm required to certify Replicated.
func (weidaReplicated) DialProducer(ctx context.Context, addr string, confirmed func(error)) (system.Producer, error) {
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		return nil, err
	}
	r := rt.Requester(weida.TrustByAddress())
	if err := r.Connect(ctx, addr); err != nil {
		rt.Shutdown()
		return nil, fmt.Errorf("weida replicated: connecting to %s: %w", addr, err)
	}
	return &replicatedProducer{rt: rt, r: r, confirmed: confirmed}, nil
}

// replicatedProducer publishes to the leader, one exchange per message.
type replicatedProducer struct {
	rt        *weida.Runtime
	r         *weida.Requester
	confirmed func(error)
	wg        sync.WaitGroup // PublishAsync's exchanges
}

// Publish runs one exchange: the queue's reply carries no payload, its
// header the certificate.
func (p *replicatedProducer) Publish(ctx context.Context, payload []byte) error {
	_, meta, err := p.r.RequestWith(ctx, weida.TransferMeta{}, payload, 0)
	if err != nil {
		return err
	}
	if level, ok := meta.Achieved(); !ok || level != weida.Replicated {
		return fmt.Errorf("weida replicated: the queue confirmed level %d (present: %v), want Replicated (%d)",
			level, ok, weida.Replicated)
	}
	return nil
}

// PublishAsync runs the exchange on a goroutine of its own: exchanges may
// run concurrently, each on its own stream. The goroutine sends a copy:
// the caller's buffer is its own again on return.
func (p *replicatedProducer) PublishAsync(ctx context.Context, payload []byte) error {
	payload = bytes.Clone(payload)
	p.wg.Go(func() { p.confirmed(p.Publish(ctx, payload)) })
	return nil
}

func (p *replicatedProducer) Close() error {
	p.rt.Shutdown()
	p.wg.Wait()
	return nil
}

// DialConsumer implements system.QueueSystem with the single-node rows'
// consumer: a Subscriber granting credit and reporting Processed.
func (q weidaReplicated) DialConsumer(ctx context.Context, addr string, maxSize int, received func([]byte)) (io.Closer, error) {
	return weidasys.Queue{Durability: q.durability()}.DialConsumer(ctx, addr, maxSize, received)
}
