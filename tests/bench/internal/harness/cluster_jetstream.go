package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/jetstreamsys"
)

// jetStreamR3 is NATS JetStream replicated three ways: three embedded
// nats-servers routed to each other on loopback (one JetStream cluster),
// one work-queue stream with Replicas: 3 in file storage. Its producers and
// consumers are jetstreamsys's: the same clients as the single-node rows.
type jetStreamR3 struct {
	// syncAlways fsyncs every write before the PubAck (sync_always, on
	// every server), like a Flushed queue; without it the servers fsync
	// every two minutes (their default), like a Written one.
	syncAlways bool
}

// The stream and subject jetstreamsys's producers and consumers use
// (jetstreamsys keeps them unexported; a mismatch fails every publish with
// "no responders", never silently).
const (
	jetStreamStream  = "BENCH"
	jetStreamSubject = "bench.queue"
)

// clusterNodes is how many servers a replicated stack runs.
const clusterNodes = 3

// clusterFormTime bounds a cluster's formation: routes, the JetStream meta
// leader, the stream's (or queue's) leader and its replicas current.
const clusterFormTime = 60 * time.Second

// Name implements system.QueueSystem.
func (q jetStreamR3) Name() string {
	if q.syncAlways {
		return "JetStream R3 file (sync always)"
	}
	return "JetStream R3 file"
}

// Replicas says this stack keeps every message on three servers.
func (jetStreamR3) Replicas() int { return clusterNodes }

// Available implements system.QueueSystem: the servers are embedded.
func (jetStreamR3) Available() string { return "" }

// jetStreamCluster is three running servers; Addr is the stream leader's
// client URL, so a producer's publish reaches the leader without a hop
// through another server (JetStream's best case).
type jetStreamCluster struct {
	servers []*server.Server
	leader  string
}

func (c *jetStreamCluster) Addr() string { return c.leader }

func (c *jetStreamCluster) Close() error {
	for _, ns := range c.servers {
		ns.Shutdown()
	}
	for _, ns := range c.servers {
		ns.WaitForShutdown()
	}
	return nil
}

// StartQueue implements system.QueueSystem: the three servers, each
// storing under its own directory of dir, and the stream once its leader
// is elected and both followers are current. A server that cannot bind a
// port it was given (taken by another program since it was found free)
// never gets ready; the cluster is then formed again on fresh ports, at
// most formAttempts times.
func (q jetStreamR3) StartQueue(ctx context.Context, dir string, maxSize int) (system.Server, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterFormTime)
	defer cancel()
	for attempt := 1; ; attempt++ {
		c, err := q.form(ctx, filepath.Join(dir, fmt.Sprintf("try%d", attempt)))
		if errors.Is(err, errNotReady) && attempt < formAttempts && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jetstream r3: %w", err)
		}
		if c.leader, err = c.createStream(ctx, maxSize); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("jetstream r3: %w", err)
		}
		return c, nil
	}
}

// formAttempts bounds how often a cluster is formed on fresh ports, and
// serverReadyTime how long one server may take to listen.
const (
	formAttempts    = 3
	serverReadyTime = 15 * time.Second
)

// errNotReady is a server that did not listen in time.
var errNotReady = errors.New("a server was not ready")

// form starts the three servers on ports found free (client and route
// ports at once, so no server's kernel-chosen port can be another's route
// port) and waits until each listens.
func (q jetStreamR3) form(ctx context.Context, dir string) (*jetStreamCluster, error) {
	ports, err := freeTCPPorts(2 * clusterNodes)
	if err != nil {
		return nil, err
	}
	clientPorts, routePorts := ports[:clusterNodes], ports[clusterNodes:]
	var routes []string
	for _, port := range routePorts {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", port))
	}
	c := &jetStreamCluster{}
	for i, port := range routePorts {
		ns, err := server.NewServer(&server.Options{ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1",
			Port: clientPorts[i], NoLog: true, NoSigs: true,
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprintf("n%d", i)), SyncAlways: q.syncAlways,
			Cluster: server.ClusterOpts{Name: "bench", Host: "127.0.0.1", Port: port},
			Routes:  server.RoutesFromStr(strings.Join(routes, ","))})
		if err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("creating server %d: %w", i, err)
		}
		ns.Start()
		c.servers = append(c.servers, ns)
	}
	for i, ns := range c.servers {
		if !ns.ReadyForConnections(min(serverReadyTime, time.Until(deadlineOf(ctx)))) {
			_ = c.Close()
			return nil, fmt.Errorf("%w: server %d within %v", errNotReady, i, serverReadyTime)
		}
	}
	return c, nil
}

// deadlineOf is ctx's deadline (StartQueue always sets one).
func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// freeTCPPorts finds n loopback ports nothing listens on, for the route
// listeners: every server must be told every route before it starts. A
// port taken in between fails that server's start loudly.
func freeTCPPorts(n int) ([]int, error) {
	var ports []int
	var listeners []io.Closer
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// clusterPoll is how often a forming cluster is asked again whether it is
// ready: neither nats-server nor hashicorp/raft signals that to an
// embedder.
const clusterPoll = 50 * time.Millisecond

// createStream creates the R3 stream (asking again while the meta group
// has no leader yet) and waits until it has a leader and two current
// followers, returning the leader's client URL.
func (c *jetStreamCluster) createStream(ctx context.Context, maxSize int) (string, error) {
	nc, err := nats.Connect(c.servers[0].ClientURL())
	if err != nil {
		return "", fmt.Errorf("connecting: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return "", err
	}
	cfg := jetstream.StreamConfig{Name: jetStreamStream, Subjects: []string{jetStreamSubject}, Replicas: clusterNodes,
		Storage: jetstream.FileStorage, Retention: jetstream.WorkQueuePolicy, MaxMsgSize: int32(maxSize)}
	var stream jetstream.Stream
	var last error
	err = pollUntil(ctx, func() (bool, error) {
		attempt, cancel := context.WithTimeout(ctx, clusterAttemptTime)
		defer cancel()
		stream, last = js.CreateStream(attempt, cfg)
		return last == nil, nil // the meta group may not be up yet: ask again
	})
	if err != nil {
		return "", fmt.Errorf("creating the stream: %w (last answer: %v)", err, last)
	}
	var leader string
	err = pollUntil(ctx, func() (bool, error) {
		attempt, cancel := context.WithTimeout(ctx, clusterAttemptTime)
		defer cancel()
		info, err := stream.Info(attempt)
		if err != nil || info.Cluster == nil || info.Cluster.Leader == "" || len(info.Cluster.Replicas) != clusterNodes-1 {
			return false, nil
		}
		for _, p := range info.Cluster.Replicas {
			if !p.Current {
				return false, nil
			}
		}
		leader = info.Cluster.Leader
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("waiting for the stream's leader and replicas: %w", err)
	}
	for _, ns := range c.servers {
		if ns.Name() == leader {
			return ns.ClientURL(), nil
		}
	}
	return "", fmt.Errorf("the stream's leader %q is none of the servers", leader)
}

// clusterAttemptTime bounds one request to a forming cluster: one to a
// meta group without a leader goes unanswered.
const clusterAttemptTime = 2 * time.Second

// pollUntil asks ready every clusterPoll until it says so, fails, or ctx
// ends.
func pollUntil(ctx context.Context, ready func() (bool, error)) error {
	tick := time.NewTicker(clusterPoll)
	defer tick.Stop()
	for {
		ok, err := ready()
		if err != nil || ok {
			return err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("not ready in time: %w", ctx.Err())
		}
	}
}

// DialProducer implements system.QueueSystem with the single-node rows'
// producer: a nats.go connection to addr publishing to the stream.
func (jetStreamR3) DialProducer(ctx context.Context, addr string, confirmed func(error)) (system.Producer, error) {
	return jetstreamsys.Queue{}.DialProducer(ctx, addr, confirmed)
}

// DialConsumer implements system.QueueSystem with the single-node rows'
// durable pull consumer. Its pulls expire after 2 s, not 30: one that a
// server dropped while the cluster moved its leadership is sent again soon.
func (jetStreamR3) DialConsumer(ctx context.Context, addr string, _ int, received func([]byte)) (io.Closer, error) {
	return jetstreamsys.DialConsumerWith(ctx, addr, received, jetstream.PullExpiry(2*time.Second))
}
