package brokercrash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/internal/crashkit"
)

// Bounds that turn a hang into a failure; nothing waits on them to sync.
const (
	startTimeout = 20 * time.Second
	stopTimeout  = 20 * time.Second
)

// queuePath is the one queue the child serves.
const queuePath = "/q"

// brokerSite is what every start of the child shares: the data directory,
// the identity file (a stable key, so clients stay pinned across
// restarts), the configuration file and a fixed port (so clients redial
// the same address).
type brokerSite struct {
	durability            string // of the queue: flushed or written
	dir, identity, config string
	bindURL               string
	address               string        // the dialling address the first start printed
	startup               time.Duration // how long the last clean start took to print it
}

// newBrokerSite picks a free loopback port and writes the configuration:
// the queue may hold 1 GiB, so no certified message is ever refused for
// room during the run.
func newBrokerSite(t *testing.T, durability string) *brokerSite {
	t.Helper()
	root := t.TempDir()
	s := &brokerSite{
		durability: durability,
		dir:        filepath.Join(root, "data"),
		identity:   filepath.Join(root, "identity"),
		config:     filepath.Join(root, "broker.json"),
		bindURL:    fmt.Sprintf("weida://127.0.0.1:%d%s", crashkit.FreeUDPPort(t), queuePath),
	}
	// Small journal segments, so kills also land while segments roll and
	// settled ones are purged.
	if err := os.WriteFile(s.config, []byte(`{"queue_bytes": 1073741824, "segment_bytes": 16384}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// brokerChild is one run of `weida broker` on the site.
type brokerChild struct{ *crashkit.Child }

// start runs the broker. It is killed when the test ends if it is still
// running then.
func (s *brokerSite) start(t *testing.T) *brokerChild {
	t.Helper()
	c, err := crashkit.Start(t, "the broker", exec.Command(weidaBinary, "broker", s.bindURL,
		"--queue", queuePath+":"+s.durability, "--data", s.dir,
		"--identity", s.identity, "--config", s.config), nil)
	if err != nil {
		t.Fatalf("cannot start the broker: %v", err)
	}
	return &brokerChild{c}
}

// awaitAddress waits for the address line and checks it is the address
// every earlier start printed: same key, same port.
func (s *brokerSite) awaitAddress(t *testing.T, c *brokerChild) {
	t.Helper()
	if err := s.readAddress(c); err != nil {
		t.Fatal(err)
	}
}

// readAddress is awaitAddress returning its failure: the broker exited
// before printing (a store that would not open), printed nothing in time,
// or printed another address.
func (s *brokerSite) readAddress(c *brokerChild) error {
	line, err := c.AwaitFirstLine(startTimeout)
	if err != nil {
		return err
	}
	s.startup = time.Since(c.Started)
	if s.address == "" {
		s.address = line
	} else if line != s.address {
		return fmt.Errorf("the broker restarted at %q, first at %q: the identity or port changed", line, s.address)
	}
	return nil
}

// stop sends SIGTERM, the CLI's orderly shutdown, and requires exit 0.
func (c *brokerChild) stop(t *testing.T) {
	t.Helper()
	if code := c.Stop(t, stopTimeout); code != 0 {
		t.Fatalf("the broker exited with %d after SIGTERM; stderr:\n%s", code, c.Stderr.Text())
	}
}

// cleanStderrPrefixes are the only lines a clean broker writes to stderr:
// the identity notice of the first start, the access rule it runs under,
// and the retire summary of an orderly stop. Anything else (a corrupt store, a store error reported
// through OnError, a panic) fails the test.
var cleanStderrPrefixes = []string{"generated an identity in ", "weida: retired: ", "weida: access: "}

// unexpectedStderr is every stderr line a clean broker does not write.
func (c *brokerChild) unexpectedStderr() []string {
	var bad []string
	for _, line := range c.Stderr.Lines() {
		clean := false
		for _, p := range cleanStderrPrefixes {
			clean = clean || strings.HasPrefix(line, p)
		}
		if !clean {
			bad = append(bad, line)
		}
	}
	return bad
}
