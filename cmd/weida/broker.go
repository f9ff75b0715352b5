package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/identity"
)

// broker's options: its queues, where persistent ones keep their store,
// and a configuration file for the rest.
var (
	optQueue = option{name: "--queue", value: "PATH[:DURABILITY][,...]",
		help: "more queues beside the URL's path, comma-separated; DURABILITY is memory " +
			"(the default: a restart loses it), written (survives a broker crash) or flushed " +
			"(survives power loss); naming the URL's path sets its durability"}
	optData = option{name: "--data", value: "DIR",
		help: "the data directory of the written and flushed queues (created if missing)"}
	optConfig = option{name: "--config", value: "FILE",
		help: "read the broker configuration from a JSON file (queues, data, queue_bytes, " +
			"max_queues, max_unsettled, segment_bytes); --queue and --data add to it"}
)

// brokerVerb serves queues and prints each queue's dialling address.
var brokerVerb = &verb{
	name:     "broker",
	synopsis: "URL [--queue PATH[:DURABILITY][,...]] [--data DIR] [--config FILE] [--cluster FILE [--trust-out PATH] [--raft-log LEVEL]] [--clients FILE|any] [--anonymous] [--identity PATH] [--cert-out PATH]",
	summary: "serve a queue at the bind URL's path (and at each --queue path) and print one " +
		"dialling address per queue on stdout; producers send to it, subscribers grant credit " +
		"and settle with Processed",
	options:       []option{optQueue, optData, optConfig, optCluster, optTrustOut, optRaftLog, optClients, optAnonymous, optIdentity, optCertOut},
	runtimeConfig: brokerRuntimeConfig,
	run:           runBroker,
}

// brokerRuntimeConfig reads the broker's configuration into inv and
// returns the runtime configuration that serves it: the runtime offers the
// acknowledgement every queue reaches and requires core (BROKER.md O-4),
// so a client requiring Stored(Flushed) fails the handshake against a
// broker with a memory queue instead of sending to it.
func brokerRuntimeConfig(inv *invocation) (weida.Config, error) {
	addr, err := identity.ParseBindAddress(inv.url)
	if err != nil {
		return weida.Config{}, err
	}
	if inv.cluster, err = readClusterMember(inv, addr); err != nil {
		return weida.Config{}, err
	}
	if inv.broker, err = brokerConfig(inv, addr.Path); err != nil {
		return weida.Config{}, err
	}
	inv.broker.Loopback = bindsLoopback(addr)
	if inv.cluster != nil {
		inv.broker.Cluster = &broker.ClusterConfig{File: inv.cluster.file, Identity: inv.cluster.identity}
		if level, ok := inv.value(optRaftLog); ok {
			inv.broker.Cluster.RaftLog, inv.broker.Cluster.RaftLogLevel = os.Stderr, level
		}
	}
	if err := checkAccess(inv, inv.broker); err != nil {
		return weida.Config{}, err
	}
	return broker.RuntimeConfig(weida.Config{}, inv.broker), nil
}

// runBroker claims the queues' paths (configured by brokerRuntimeConfig),
// binds, prints the addresses and serves until SIGINT or SIGTERM. It then
// retires the queues (refusing new messages, letting deliveries out
// settle) until the drain deadline, and closes the broker; the runtime's
// drain follows (runVerb).
func runBroker(ctx context.Context, rt *weida.Runtime, inv *invocation, con console) error {
	addr, err := identity.ParseBindAddress(inv.url)
	if err != nil {
		return err
	}
	cfg := inv.broker
	cfg.OnError = func(path string, err error) { fmt.Fprintf(con.err, "weida: queue %s: %v\n", path, err) }
	cfg.AccessLog = slog.New(slog.NewTextHandler(con.err, nil))
	if cfg.Cluster != nil {
		// A member's operator needs its leadership changes (and the
		// refusals a lost quorum causes) as they happen.
		cfg.Logger = cfg.AccessLog
	}
	id, err := brokerIdentity(inv, con)
	if err != nil {
		return err
	}
	b, err := broker.New(rt, cfg)
	if err != nil {
		return err
	}
	defer b.Close()
	binding, err := bind(rt, addr, id, b.BindOptions()...)
	if err != nil {
		return err
	}
	fmt.Fprintf(con.err, "weida: %s\n", b.Access().Describe())
	if err := writeCertificate(inv, id, con); err != nil {
		return err
	}
	if err := writeTrust(inv, inv.cluster, con); err != nil {
		return err
	}
	for _, path := range b.Paths() {
		if _, err := fmt.Fprintln(con.out, binding.URL(path)); err != nil {
			return fmt.Errorf("cannot print the address: %w", err)
		}
	}
	served := make(chan error, 1)
	go func() { served <- b.Serve(context.Background()) }()
	statsCtx, stopStats := context.WithCancel(ctx)
	statsStopped := serveStats(statsCtx, b, con)
	serveReloads(ctx, b, inv, con)
	stopStats()
	statsStopped()
	r := b.Retire(inv.drainDeadline())
	fmt.Fprintf(con.err, "weida: retired: %d settled, %d requeued, %d held undelivered\n",
		r.Settled, r.Requeued, r.Unsettled)
	b.Close()
	<-served
	return nil
}

// brokerConfig is the --config file, then the URL's path, then --queue and
// --data. A path named twice keeps its place and takes the later durability.
func brokerConfig(inv *invocation, urlPath string) (broker.Config, error) {
	var cfg broker.Config
	if file, ok := inv.value(optConfig); ok {
		var err error
		if cfg, err = readBrokerConfig(file); err != nil {
			return cfg, err
		}
	}
	add := func(q broker.QueueConfig) {
		for i := range cfg.Queues {
			if cfg.Queues[i].Path == q.Path {
				cfg.Queues[i].Durability = q.Durability
				return
			}
		}
		cfg.Queues = append(cfg.Queues, q)
	}
	// A cluster member's URL names a replicated queue, served from the
	// cluster file rather than as a local one.
	if !hasQueue(cfg, urlPath) && inv.cluster == nil {
		add(broker.QueueConfig{Path: urlPath})
	}
	if list, ok := inv.value(optQueue); ok {
		for _, spec := range strings.Split(list, ",") {
			if spec == "" {
				return cfg, usageErrorf(inv.verb, "--queue has an empty entry in %q", list)
			}
			q, err := broker.ParseQueue(spec)
			if err != nil {
				return cfg, usageErrorf(inv.verb, "--queue %q: %v", spec, err)
			}
			add(q)
		}
	}
	if dir, ok := inv.value(optData); ok {
		cfg.DataDir = dir
	}
	cfg.Access = accessRules(inv, clusterAccess(inv, cfg.Access))
	return cfg, nil
}

func hasQueue(cfg broker.Config, path string) bool {
	for _, q := range cfg.Queues {
		if q.Path == path {
			return true
		}
	}
	return false
}
