package main

// weida broker --cluster: what a node refuses to serve, and why.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// clusterSite is a cluster file's worth of members on loopback: each an
// identity file, a client port and a Raft port nothing listened on a
// moment ago.
type clusterSite struct {
	dir        string
	identities []string // identity file of each member
	keys       []string // each member's fingerprint
	client     []int
	raft       []int
}

// newClusterSite makes n members' identities and ports.
func newClusterSite(t *testing.T, n int) *clusterSite {
	t.Helper()
	s := &clusterSite{dir: t.TempDir()}
	for i := range n {
		path := filepath.Join(s.dir, fmt.Sprintf("member%d.pem", i+1))
		s.identities = append(s.identities, path)
		s.keys = append(s.keys, writeIdentity(t, path))
		s.client = append(s.client, closedUDPPort(t))
		s.raft = append(s.raft, closedUDPPort(t))
	}
	return s
}

// writeIdentity writes a new identity to path and returns its fingerprint.
func writeIdentity(t *testing.T, path string) string {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if err := id.WritePEMFile(path); err != nil {
		t.Fatal(err)
	}
	return id.Fingerprint().String()
}

// file writes a cluster file of every member serving queues (a JSON
// array's content) and returns its path.
func (s *clusterSite) file(t *testing.T, name, queues string) string {
	t.Helper()
	var members []string
	for i := range s.keys {
		members = append(members, fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:%d", "raft": "127.0.0.1:%d"}`,
			s.keys[i], s.client[i], s.raft[i]))
	}
	path := filepath.Join(s.dir, name)
	text := `{"members": [` + strings.Join(members, ",\n  ") + `], "queues": [` + queues + `]}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// bindURL is member i's client address with path.
func (s *clusterSite) bindURL(i int, path string) string {
	return fmt.Sprintf("weida://127.0.0.1:%d%s", s.client[i], path)
}

const jobsQueue = `{"path": "/jobs", "durability": "flushed"}`

func TestBrokerClusterRefusals(t *testing.T) {
	t.Parallel()
	three, two, four := newClusterSite(t, 3), newClusterSite(t, 2), newClusterSite(t, 4)
	file := three.file(t, "cluster.json", jobsQueue)
	stranger := filepath.Join(three.dir, "stranger.pem")
	strangerKey := writeIdentity(t, stranger)
	data := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a key that is not a member",
			[]string{three.bindURL(0, "/jobs"), "--cluster", file, "--identity", stranger, "--data", data},
			exitFailure, "this node's key " + strangerKey + " is not a member of the cluster (members: " + three.keys[0]},
		{"a cluster of 2",
			[]string{two.bindURL(0, "/jobs"), "--cluster", two.file(t, "two.json", jobsQueue), "--identity", two.identities[0], "--data", data},
			exitFailure, "2 members: a cluster has 3 or 5"},
		{"a cluster of 4",
			[]string{four.bindURL(0, "/jobs"), "--cluster", four.file(t, "four.json", jobsQueue), "--identity", four.identities[0], "--data", data},
			exitFailure, "4 members: a cluster has 3 or 5"},
		{"a bad durability in the file",
			[]string{three.bindURL(0, "/jobs"), "--cluster", three.file(t, "memory.json", `{"path": "/jobs", "durability": "memory"}`),
				"--identity", three.identities[0], "--data", data},
			exitFailure, `durability "memory"; a replicated queue is written or flushed`},
		{"no identity",
			[]string{three.bindURL(0, "/jobs"), "--cluster", file, "--data", data},
			exitUsage, "--cluster needs --identity"},
		{"no data directory",
			[]string{three.bindURL(0, "/jobs"), "--cluster", file, "--identity", three.identities[0]},
			exitUsage, "--cluster needs --data"},
		{"another member's port",
			[]string{three.bindURL(1, "/jobs"), "--cluster", file, "--identity", three.identities[0], "--data", data},
			exitFailure, fmt.Sprintf("gives this member (%s) the client address 127.0.0.1:%d", three.keys[0], three.client[0])},
		{"a path the cluster does not serve",
			[]string{three.bindURL(0, "/mail"), "--cluster", file, "--identity", three.identities[0], "--data", data},
			exitFailure, "the URL's path /mail is not a queue of cluster file " + file + " (its queues: /jobs)"},
		{"--trust-out alone",
			[]string{three.bindURL(0, "/jobs"), "--trust-out", filepath.Join(data, "trust")},
			exitUsage, "--trust-out writes a cluster's member keys: it needs --cluster"},
		{"--raft-log alone",
			[]string{three.bindURL(0, "/jobs"), "--raft-log", "debug"},
			exitUsage, "--raft-log shows the Raft groups of a cluster: it needs --cluster"},
		{"an unknown Raft log level",
			[]string{three.bindURL(0, "/jobs"), "--cluster", file, "--identity", three.identities[0], "--data", data, "--raft-log", "loud"},
			exitFailure, `raft log level "loud": want trace, debug, info, warn or error`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectOutcome(t, runWeida(t, nil, append([]string{"broker"}, c.args...)...), c.code, c.want)
		})
	}
}
