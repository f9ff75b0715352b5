package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/broker/cluster"
	"github.com/weida-go/weida/core/identity"
)

// The broker's cluster options (docs/CLUSTER.md).
var (
	optCluster = option{name: "--cluster", value: "FILE",
		help: "serve every queue of the cluster file FILE replicated over its 3 or 5 members " +
			"(docs/CLUSTER.md); needs --identity (this member's key, made with weida keygen and " +
			"named in FILE) and --data; the URL binds this member's client port and names one " +
			"of the file's queues; SIGUSR1 prints each queue's leader, term and indexes on stderr"}
	optTrustOut = option{name: "--trust-out", value: "PATH",
		help: "with --cluster: write the members' fingerprints to PATH, one per line, the trust " +
			"a client gives to accept any member"}
	optRaftLog = option{name: "--raft-log", value: "LEVEL",
		help: "with --cluster: write hashicorp/raft's own log lines (elections, heartbeats, " +
			"replication) to stderr at LEVEL and above: trace, debug, info, warn or error"}
)

// clusterMember is this node's place in its cluster: the checked file and
// the key it is a member by, read before the runtime starts so that the
// runtime's offer and the replicated queues agree.
type clusterMember struct {
	file     *cluster.File
	identity *weida.Identity
}

// readClusterMember reads --cluster and --identity and checks that this
// node can serve the file: its key is a member, the URL binds the port
// the file gives that member and names one of the file's queues. The
// file's own errors (its size, a bad member, 2 or 4 members) are
// cluster.ReadFile's, unchanged. Without --cluster it returns nil.
func readClusterMember(inv *invocation, addr weida.Address) (*clusterMember, error) {
	path, ok := inv.value(optCluster)
	if !ok {
		if inv.has(optTrustOut) {
			return nil, usageErrorf(inv.verb, "--trust-out writes a cluster's member keys: it needs --cluster")
		}
		if inv.has(optRaftLog) {
			return nil, usageErrorf(inv.verb, "--raft-log shows the Raft groups of a cluster: it needs --cluster")
		}
		return nil, nil
	}
	file, err := cluster.ReadFile(path)
	if err != nil {
		return nil, err
	}
	idPath, ok := inv.value(optIdentity)
	if !ok {
		return nil, usageErrorf(inv.verb, "--cluster needs --identity: a member is known by its key "+
			"(weida keygen PATH makes one; the cluster file names its fingerprint)")
	}
	if !inv.has(optData) && !inv.has(optConfig) {
		return nil, usageErrorf(inv.verb, "--cluster needs --data: every member keeps its Raft log and bodies on disk")
	}
	id, err := weida.LoadIdentity(idPath)
	if err != nil {
		return nil, fmt.Errorf("cannot load this member's identity: %w", err)
	}
	self, err := file.Self(id.Fingerprint())
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	if addr.Scheme != identity.SchemeQUIC {
		return nil, fmt.Errorf("a cluster member serves weida:// (QUIC), not %s", addr)
	}
	if addr.Port != self.URL.Port {
		return nil, fmt.Errorf("the URL binds port %d, but cluster file %s gives this member (%s) the client address %s: bind that port",
			addr.Port, path, self.Key, self.URL.HostPort())
	}
	if !slices.ContainsFunc(file.Queues, func(q cluster.Queue) bool { return q.Path == addr.Path }) {
		return nil, fmt.Errorf("the URL's path %s is not a queue of cluster file %s (its queues: %s)",
			addr.Path, path, strings.Join(clusterPaths(file), ", "))
	}
	return &clusterMember{file: file, identity: id}, nil
}

// clusterPaths is every queue path of the file, in its order.
func clusterPaths(f *cluster.File) []string {
	paths := make([]string, len(f.Queues))
	for i, q := range f.Queues {
		paths[i] = q.Path
	}
	return paths
}

// writeTrust writes the members' fingerprints to the --trust-out path.
func writeTrust(inv *invocation, m *clusterMember, con console) error {
	path, ok := inv.value(optTrustOut)
	if !ok || m == nil {
		return nil
	}
	if err := os.WriteFile(path, m.file.TrustFile(), 0o644); err != nil {
		return fmt.Errorf("cannot write the cluster's trust: %w", err)
	}
	fmt.Fprintf(con.err, "weida: wrote the %d member keys to %s\n", len(m.file.Members), path)
	return nil
}

// brokerIdentity is the key the broker serves by: a cluster member's, read
// with its cluster file, else --identity's or a fresh one (serverIdentity).
func brokerIdentity(inv *invocation, con console) (*weida.Identity, error) {
	if inv.cluster != nil {
		return inv.cluster.identity, nil
	}
	return serverIdentity(inv, con)
}

// clusterAccess is the access section the broker runs under before its
// flags: the configuration file's when it has one, else a cluster
// member's file's (every member serves the same rules: the file's digest
// covers them).
func clusterAccess(inv *invocation, fromConfig *access.Rules) *access.Rules {
	if fromConfig == nil && inv.cluster != nil {
		return inv.cluster.file.Access
	}
	return fromConfig
}
