package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/internal/lograte"
	"github.com/weida-go/weida/core/transport/raftlayer"
)

// defaultMaxAppendEntries and logCacheEntries tune every group unless
// NodeConfig.Raft says otherwise: the entries one AppendEntries carries, and
// the latest entries kept in memory. An entry is at most about 5.5 KiB
// (one inline body and its metadata), a BATCH at most MaxBatchBytes and
// one more entry: at most about 72 MiB per group cached, and 36 MiB per
// AppendEntries.
const (
	defaultMaxAppendEntries = 512
	logCacheEntries         = 1024
)

// rpcTimeout bounds one Raft RPC between members (snapshots stream longer:
// hashicorp scales the timeout by size).
const rpcTimeout = 10 * time.Second

// NodeConfig is one member's view of its cluster.
type NodeConfig struct {
	File     *File
	Identity *identity.Identity
	// DataDir holds DATA/raft/<queue-id>/ for every replicated queue.
	DataDir string
	// Raft tunes every group's timings; nil is hashicorp's defaults.
	Raft *raft.Config
	// Log hears leadership changes and failures (nil: discarded).
	Log *slog.Logger
	// RaftLog, when set, receives hashicorp/raft's own log lines at
	// RaftLogLevel and above, each group's named "raft <queue path>": the
	// elections, heartbeats and replication behind a slow failover.
	RaftLog io.Writer
	// RaftLogLevel is "trace", "debug", "info" (the default), "warn" or
	// "error".
	RaftLogLevel string
	// RaftConn, when set, is the UDP socket of this member's Raft address,
	// opened already (tests bind port 0 before writing the file); else the
	// node binds the address itself.
	RaftConn net.PacketConn
	// FS is the file system of the payload stores (nil: the operating
	// system's); tests hand it a failing disk.
	FS store.FS
	// Faults, when set, is a fault-injecting network under the Raft port
	// (tests: partitions, delay, loss).
	Faults *FaultPlan
}

// Node is a running member: its Raft port and one group per replicated
// queue.
type Node struct {
	self      Member
	file      *File
	port      *raftlayer.Node
	log       *slog.Logger
	byRaft    map[raft.ServerAddress]Member
	groups    map[string]*Group
	order     []*Group
	stop      chan struct{}
	raftLog   io.Writer   // hashicorp/raft's own lines (raftlog.go); nil: none
	raftLevel hclog.Level // the least level raftLog hears
	wg        sync.WaitGroup
	closing   sync.Once
	// bgMu orders goBackground against Close: no goroutine is added to
	// wg once Close waits on it.
	bgMu     sync.Mutex
	bgClosed bool
}

// Group is one replicated queue's Raft group on this node.
type Group struct {
	Path    string
	Flushed bool
	FSM     *FSM
	raft    *raft.Raft
	stores  *GroupStores
	bodies  *Payloads
	port    *raftlayer.Group
	node    *Node
	leaders chan raft.Observation

	repairMu     sync.Mutex
	lost         *MissingBodyError // a body no member holds, until fetched
	fetchLogGate lograte.Gate
	served       payloadServed
	started      atomic.Pointer[raft.Raft] // g.raft, once NewRaft returned
	// transferStall ends a body being fetched or pushed here once nothing
	// arrived for so long: Raft's heartbeat timeout. StoreLogs waits for
	// such bodies while this member's Raft loop waits for StoreLogs, so a
	// sender that died mid-body (SIGKILL sends no close) must not hold the
	// member deaf to the next election longer than Raft would wait for it.
	transferStall time.Duration
	// unanswered: members asked last for bodies (see fetchOrder).
	unanswered unansweredFetches
}

// GroupID is the queue id of path (SHA-256 of the path), the name of its
// group on the Raft port and of its folder.
func GroupID(path string) raftlayer.GroupID { return sha256.Sum256([]byte(path)) }

// serverID is a member's Raft ServerID: its key, hex.
func serverID(key identity.Fingerprint) raft.ServerID {
	return raft.ServerID(hex.EncodeToString(key[:]))
}

// StartNode opens the Raft port and every group. A group with no state on
// disk is bootstrapped with the file's members (every member does the same
// with the same configuration, which hashicorp/raft allows).
func StartNode(cfg NodeConfig) (*Node, error) {
	self, err := cfg.File.Self(cfg.Identity.Fingerprint())
	if err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	raftLevel, err := raftLogLevel(cfg.RaftLogLevel)
	if err != nil {
		return nil, err
	}
	n := &Node{self: self, file: cfg.File, log: log, byRaft: map[raft.ServerAddress]Member{},
		groups: map[string]*Group{}, stop: make(chan struct{}),
		raftLog: cfg.RaftLog, raftLevel: raftLevel}
	members := map[string]identity.Fingerprint{}
	var servers []raft.Server
	for _, m := range cfg.File.Members {
		members[m.Raft] = m.Key
		n.byRaft[raft.ServerAddress(m.Raft)] = m
		servers = append(servers, raft.Server{ID: serverID(m.Key), Address: raft.ServerAddress(m.Raft)})
	}
	var digest [32]byte
	copy(digest[:], cfg.File.digest[:])
	portCfg := raftlayer.Config{Identity: cfg.Identity, Members: members, Digest: digest, Log: log}
	if pc := cfg.RaftConn; pc != nil || cfg.Faults != nil {
		if pc == nil {
			if pc, err = net.ListenPacket("udp", self.Raft); err != nil {
				return nil, fmt.Errorf("raft port %s: %w", self.Raft, err)
			}
		}
		if cfg.Faults != nil {
			pc = cfg.Faults.Wrap(pc)
		}
		if n.port, err = raftlayer.Serve(pc, portCfg); err != nil && cfg.RaftConn == nil {
			pc.Close()
		}
	} else {
		n.port, err = raftlayer.Listen(self.Raft, portCfg)
	}
	if err != nil {
		return nil, err
	}
	for _, q := range cfg.File.Queues {
		g, err := n.startGroup(q, cfg, servers)
		if err != nil {
			n.Close()
			return nil, fmt.Errorf("replicated queue %s: %w", q.Path, err)
		}
		n.groups[q.Path], n.order = g, append(n.order, g)
	}
	for _, g := range n.order {
		n.wg.Add(2)
		go n.watchLeadership(g)
		go g.repairBodies()
	}
	return n, nil
}

func (n *Node) startGroup(q Queue, cfg NodeConfig, servers []raft.Server) (*Group, error) {
	id := GroupID(q.Path)
	pg, err := n.port.Group(id)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.DataDir, "raft", hex.EncodeToString(id[:]))
	bodies, err := OpenPayloads(cfg.FS, filepath.Join(dir, "payload"), q.Flushed)
	if err != nil {
		pg.Close()
		return nil, err
	}
	stores, err := OpenGroupStores(dir, q.Flushed, nil)
	if err != nil {
		pg.Close()
		return nil, err
	}
	conf := raft.DefaultConfig()
	// Up to 512 entries per AppendEntries (hashicorp's default is 64): at
	// 256 admissions in flight a follower is sent them in one RPC and
	// stores them in one bbolt transaction.
	conf.MaxAppendEntries = defaultMaxAppendEntries
	if cfg.Raft != nil {
		c := *cfg.Raft
		conf = &c
	}
	conf.LocalID = serverID(n.self.Key)
	conf.Logger = n.raftLogger(q.Path)
	g := &Group{Path: q.Path, Flushed: q.Flushed, FSM: NewFSM(), stores: stores, bodies: bodies, port: pg, node: n, leaders: make(chan raft.Observation, 16),
		transferStall: conf.HeartbeatTimeout}
	g.FSM.bodies = bodies
	existing, err := raft.HasExistingState(stores.Log, stores.Stable, stores.Snapshots)
	if err == nil {
		stores.Log, err = newBodyLogStore(stores.Log, bodies, g.fetchNoted, g.leads, n.stop)
	}
	if err == nil {
		// The latest entries are read again right after they are stored
		// (the leader to replicate them, every member to apply them):
		// served from memory instead of bbolt.
		stores.Log, err = raft.NewLogCache(logCacheEntries, stores.Log)
	}
	if err == nil {
		g.raft, err = raft.NewRaft(conf, g.FSM, stores.Log, stores.Stable, stores.Snapshots, Transport(pg, 3, rpcTimeout, nil))
	}
	if err != nil {
		stores.Close()
		pg.Close()
		return nil, err
	}
	// Raft's goroutines run from NewRaft on: a StoreLogs may fetch before
	// g.raft is set, so they read it through started.
	g.started.Store(g.raft)
	pg.ServeFetch(g.serveFetch)
	g.raft.RegisterObserver(raft.NewObserver(g.leaders, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	}))
	if !existing {
		if err := g.raft.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			g.raft.Shutdown().Error()
			stores.Close()
			pg.Close()
			return nil, err
		}
	}
	return g, nil
}

// goBackground runs f on a goroutine Close waits for; false (f not run)
// once the node is closing.
func (n *Node) goBackground(f func()) bool {
	n.bgMu.Lock()
	defer n.bgMu.Unlock()
	if n.bgClosed {
		return false
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		f()
	}()
	return true
}

// Group returns the group of the replicated queue at path, or nil.
func (n *Node) Group(path string) *Group { return n.groups[path] }

// Close stops every group and the Raft port.
func (n *Node) Close() {
	n.closing.Do(func() {
		close(n.stop)
		n.bgMu.Lock()
		n.bgClosed = true
		n.bgMu.Unlock()
		// The port first: a dial or a body fetch in flight (Raft's
		// included) ends with it, rather than at its timeout.
		n.port.Close()
		for _, g := range n.order {
			g.raft.Shutdown().Error()
			g.stores.Close()
		}
		n.wg.Wait()
	})
}

// watchLeadership logs g's leader changes and, when this node has just
// come to lead g, spreads leadership over the members.
func (n *Node) watchLeadership(g *Group) {
	defer n.wg.Done()
	for {
		select {
		case <-n.stop:
			return
		case o := <-g.leaders:
			lo := o.Data.(raft.LeaderObservation)
			leader := n.byRaft[lo.LeaderAddr]
			n.log.Info("cluster: leader changed", "queue", g.Path, "leader", leader.Key.String(), "term", g.raft.CurrentTerm())
			if lo.LeaderID == serverID(n.self.Key) {
				n.spread(g)
			}
		}
	}
}

// spread hands g's leadership to the member leading fewest groups when
// this node leads more than its share, so the queues' work is spread over
// the machines. It judges by what this node sees of every group's leader.
func (n *Node) spread(g *Group) {
	share := (len(n.order) + len(n.file.Members) - 1) / len(n.file.Members)
	led := map[raft.ServerAddress]int{}
	for _, m := range n.file.Members {
		led[raft.ServerAddress(m.Raft)] = 0
	}
	for _, other := range n.order {
		if addr, _ := other.raft.LeaderWithID(); addr != "" {
			led[addr]++
		}
	}
	self := raft.ServerAddress(n.self.Raft)
	if led[self] <= share {
		return
	}
	var target raft.ServerAddress
	for _, m := range n.file.Members {
		a := raft.ServerAddress(m.Raft)
		if a != self && (target == "" || led[a] < led[target]) {
			target = a
		}
	}
	if led[target] >= share {
		return
	}
	if err := g.raft.LeadershipTransferToServer(serverID(n.byRaft[target].Key), target).Error(); err != nil {
		n.log.Warn("cluster: leadership transfer failed", "queue", g.Path, "to", n.byRaft[target].Key.String(), "err", err)
	}
}

// NotLeaderError says this node does not lead the queue; Leader is the
// leader's client URL with the queue's path, empty while none is known.
type NotLeaderError struct {
	Path   string
	Leader string
	Term   uint64
}

func (e *NotLeaderError) Error() string {
	if e.Leader == "" {
		return fmt.Sprintf("not the leader of %s, and no leader is known (term %d)", e.Path, e.Term)
	}
	return fmt.Sprintf("not the leader of %s: the leader is %s (term %d)", e.Path, e.Leader, e.Term)
}

// Leader is g's leader as this node knows it: its client URL with the
// queue's path, and the current term; ok is false while none is known.
func (g *Group) Leader() (url string, term uint64, ok bool) {
	addr, _ := g.raft.LeaderWithID()
	m, known := g.node.byRaft[addr]
	if !known {
		return "", g.raft.CurrentTerm(), false
	}
	return m.URL.WithPath(g.Path).String(), g.raft.CurrentTerm(), true
}

// IsLeader reports whether this node leads g now.
func (g *Group) IsLeader() bool { return g.raft.State() == raft.Leader }

// Propose commits e and returns what applying it answered. On a node that
// does not lead g it fails with *NotLeaderError; when leadership is lost
// while committing, the entry may or may not be committed: the error says
// so (ErrIndeterminate), never that it failed.
func (g *Group) Propose(ctx context.Context, e Entry) (any, error) {
	raw, err := e.Encode()
	if err != nil {
		return nil, err
	}
	if e.Kind == EntryAdmit && e.Length > MaxInlineBody && !g.bodies.Has([32]byte(e.Digest)) {
		// Every member stores the ADMIT only with its body: the leader
		// must hold it first (Payloads().NewBody ... Commit).
		return nil, fmt.Errorf("replicated queue %s: ADMIT of body %x, which this node's payload store lacks", g.Path, e.Digest)
	}
	if e.Kind == EntryAdmit && e.Length > MaxInlineBody && g.IsLeader() {
		g.pushBody(ctx, [32]byte(e.Digest), e.Length)
	}
	deadline := time.Now().Add(rpcTimeout)
	if d, ok := ctx.Deadline(); ok {
		deadline = d
	}
	f := g.applyPastTransfer(ctx, raw, deadline)
	if err := f.Error(); err != nil {
		switch {
		case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipTransferInProgress):
			url, term, _ := g.Leader()
			return nil, &NotLeaderError{Path: g.Path, Leader: url, Term: term}
		case errors.Is(err, raft.ErrLeadershipLost), errors.Is(err, raft.ErrRaftShutdown):
			// Appended, perhaps replicated: the next leader may commit it.
			return nil, fmt.Errorf("%w: %v", ErrIndeterminate, err)
		}
		return nil, err
	}
	if err, ok := f.Response().(error); ok {
		return nil, err
	}
	return f.Response(), nil
}

// applyPastTransfer applies raw, waiting out a leadership transfer in
// progress: hashicorp/raft refuses every Apply while one runs (appending
// nothing), and when it fails this node simply goes on leading, so the
// proposal is tried again until the transfer ended or the deadline.
func (g *Group) applyPastTransfer(ctx context.Context, raw []byte, deadline time.Time) raft.ApplyFuture {
	backoff := 5 * time.Millisecond
	for {
		f := g.raft.Apply(raw, time.Until(deadline))
		if !errors.Is(f.Error(), raft.ErrLeadershipTransferInProgress) || time.Now().Add(backoff).After(deadline) {
			return f
		}
		select {
		case <-ctx.Done():
			return f
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// ErrIndeterminate marks a proposal whose fate is unknown: it may be
// committed by the next leader.
var ErrIndeterminate = errors.New("cluster: the entry may or may not be committed")
