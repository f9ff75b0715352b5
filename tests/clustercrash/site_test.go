package clustercrash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

// Bounds that turn a hang into a failure; nothing waits on them to sync.
const (
	startTimeout = 20 * time.Second
	stopTimeout  = 30 * time.Second
	// electionTimeout bounds the wait for a leader after a start or a kill.
	electionTimeout = 30 * time.Second
	// portAttempts bounds the retries when a port picked free was taken
	// before the member bound it.
	portAttempts = 3
)

// queuePath is the one replicated queue the cluster serves.
const queuePath = "/q"

// clusterSite is what every start of every member shares: the cluster
// file, each member's key, ports and data directory, and the leader
// tracker that reads every member's log.
type clusterSite struct {
	root       string
	durability string // the queue's: flushed or written
	file       string
	members    []*memberSite
	leaders    *leaderTracker
	timeline   *timeline // what every member, the producer and the consumer did when
}

// memberSite is one member: a stable key (clients stay pinned across
// restarts), fixed ports (they redial the same address) and its data.
type memberSite struct {
	index            int
	identity, data   string
	key              string // sha256:… fingerprint
	clientPort, raft int
	child            *memberChild // the running start, nil when down
}

// newClusterSite makes three members' keys and writes the cluster file
// serving queuePath at durability.
func newClusterSite(t *testing.T, durability string) *clusterSite {
	t.Helper()
	s := &clusterSite{root: t.TempDir(), durability: durability, leaders: newLeaderTracker(), timeline: newTimeline()}
	s.file = filepath.Join(s.root, "cluster.json")
	for i := range 3 {
		m := &memberSite{index: i,
			identity: filepath.Join(s.root, fmt.Sprintf("member%d.pem", i+1)),
			data:     filepath.Join(s.root, fmt.Sprintf("data%d", i+1))}
		id, err := weida.GenerateIdentity()
		if err != nil {
			t.Fatal(err)
		}
		if err := id.WritePEMFile(m.identity); err != nil {
			t.Fatal(err)
		}
		m.key = id.Fingerprint().String()
		s.members = append(s.members, m)
	}
	s.timeline.nameMembers(s.members)
	s.writeFile(t)
	return s
}

// writeFile picks fresh ports for every member and writes the file. A
// port free a moment ago may be taken before the member binds it, so
// startAll retries with new ones.
func (s *clusterSite) writeFile(t *testing.T) {
	t.Helper()
	var entries []string
	for _, m := range s.members {
		m.clientPort, m.raft = crashkit.FreeUDPPort(t), crashkit.FreeUDPPort(t)
		entries = append(entries, fmt.Sprintf(`{"url": "weida://%s@127.0.0.1:%d", "raft": "127.0.0.1:%d"}`, m.key, m.clientPort, m.raft))
	}
	text := fmt.Sprintf("{\"members\": [\n  %s],\n \"queues\": [{\"path\": %q, \"durability\": %q}]}\n",
		strings.Join(entries, ",\n  "), queuePath, s.durability)
	if err := os.WriteFile(s.file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// url is member m's dialling address of the queue.
func (m *memberSite) url() string {
	return fmt.Sprintf("weida://%s@127.0.0.1:%d%s", m.key, m.clientPort, queuePath)
}

// byKey is the member whose key is key, or nil.
func (s *clusterSite) byKey(key string) *memberSite {
	for _, m := range s.members {
		if m.key == key {
			return m
		}
	}
	return nil
}

// startAll starts every member and waits for each one's address; when a
// port was taken meanwhile it rewrites the file with new ports and starts
// them all again.
func (s *clusterSite) startAll(t *testing.T) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		var err error
		for _, m := range s.members {
			s.start(t, m)
		}
		for _, m := range s.members {
			if err = m.child.awaitAddress(m.url()); err != nil {
				break
			}
		}
		if err == nil {
			return
		}
		collided := strings.Contains(err.Error(), "address already in use")
		for _, m := range s.members {
			m.child.Discard()
			m.child = nil
		}
		if !collided || attempt == portAttempts {
			t.Fatal(err)
		}
		t.Logf("a port was taken before its member bound it (%v); new ports", err)
		s.writeFile(t)
	}
}

// start runs member m; it is killed when the test ends if still running.
func (s *clusterSite) start(t *testing.T, m *memberSite) {
	t.Helper()
	bind := fmt.Sprintf("weida://127.0.0.1:%d%s", m.clientPort, queuePath)
	c, err := crashkit.Start(t, "a member", exec.Command(weidaBinary, "broker", bind, "--cluster", s.file,
		"--identity", m.identity, "--data", m.data), func(line string) {
		s.leaders.observe(line)
		s.timeline.memberLine(m.index, line)
	})
	if err != nil {
		t.Fatalf("cannot start member %d: %v", m.index+1, err)
	}
	m.child = &memberChild{c}
}

// memberChild is one run of `weida broker --cluster`.
type memberChild struct{ *crashkit.Child }

// awaitAddress waits for the address line, which must be want: the same
// key and port on every start.
func (c *memberChild) awaitAddress(want string) error {
	line, err := c.AwaitFirstLine(startTimeout)
	if err == nil && line != want {
		err = fmt.Errorf("a member printed %q, want %q", line, want)
	}
	return err
}

// stop sends SIGTERM, the CLI's orderly end, and requires exit 0.
func (c *memberChild) stop(t *testing.T) {
	t.Helper()
	if code := c.Stop(t, stopTimeout); code != 0 {
		t.Errorf("a member exited %d after SIGTERM; stderr:\n%s", code, c.Stderr.Text())
	}
}

// badStderr is every line a healthy member does not write: anything at
// level ERROR, a panic, a race report.
func (c *memberChild) badStderr() []string {
	var bad []string
	for _, line := range c.Stderr.Lines() {
		if strings.Contains(line, "level=ERROR") || strings.HasPrefix(line, "panic:") ||
			strings.Contains(line, "DATA RACE") || strings.HasPrefix(line, "fatal error:") {
			bad = append(bad, line)
		}
	}
	return bad
}
