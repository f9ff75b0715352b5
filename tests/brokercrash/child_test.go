package brokercrash

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
		bindURL:    fmt.Sprintf("weida://127.0.0.1:%d%s", freeUDPPort(t), queuePath),
	}
	// Small journal segments, so kills also land while segments roll and
	// settled ones are purged.
	if err := os.WriteFile(s.config, []byte(`{"queue_bytes": 1073741824, "segment_bytes": 16384}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// freeUDPPort is a loopback UDP port nobody held a moment ago.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// brokerChild is one run of `weida broker` on the site.
type brokerChild struct {
	cmd     *exec.Cmd
	stdout  *lineSink
	stderr  *lineSink
	exited  chan struct{} // closed once the process was reaped
	started time.Time
}

// start runs the broker. It is killed when the test ends if it is still
// running then.
func (s *brokerSite) start(t *testing.T) *brokerChild {
	t.Helper()
	c := &brokerChild{
		cmd: exec.Command(weidaBinary, "broker", s.bindURL,
			"--queue", queuePath+":"+s.durability, "--data", s.dir,
			"--identity", s.identity, "--config", s.config),
		stdout: newLineSink(), stderr: newLineSink(), exited: make(chan struct{}),
	}
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("cannot start the broker: %v", err)
	}
	c.started = time.Now()
	go func() {
		_ = c.cmd.Wait() // its status is read from ProcessState
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.exited
	})
	return c
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
	timeout := time.NewTimer(startTimeout)
	defer timeout.Stop()
	select {
	case line := <-c.stdout.first:
		s.startup = time.Since(c.started)
		if s.address == "" {
			s.address = line
		} else if line != s.address {
			return fmt.Errorf("the broker restarted at %q, first at %q: the identity or port changed", line, s.address)
		}
		return nil
	case <-c.exited:
		return fmt.Errorf("the broker exited before printing its address (%s); stderr:\n%s", c.cmd.ProcessState, c.stderr.text())
	case <-timeout.C:
		return fmt.Errorf("the broker printed no address within %v; stderr:\n%s", startTimeout, c.stderr.text())
	}
}

// kill sends SIGKILL and requires that the signal is what ended the
// child: a child that had already exited died on its own.
func (c *brokerChild) kill(t *testing.T) {
	t.Helper()
	// An error means the process is gone already; the status below says how.
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
	if st := c.cmd.ProcessState; st.Exited() {
		t.Fatalf("the broker exited on its own (%s) before SIGKILL reached it; stderr:\n%s", st, c.stderr.text())
	}
}

// stop sends SIGTERM, the CLI's orderly shutdown, and requires exit 0.
func (c *brokerChild) stop(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("cannot signal the broker: %v", err)
	}
	timeout := time.NewTimer(stopTimeout)
	defer timeout.Stop()
	select {
	case <-c.exited:
	case <-timeout.C:
		t.Fatalf("the broker did not stop within %v of SIGTERM; stderr:\n%s", stopTimeout, c.stderr.text())
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the broker exited with %d after SIGTERM; stderr:\n%s", code, c.stderr.text())
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
	for _, line := range c.stderr.lines() {
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

// lineSink collects a child's output as lines and hands the first one out
// on a channel, so a test can wait for the address instead of sleeping.
type lineSink struct {
	mu      sync.Mutex
	partial []byte
	all     []string
	first   chan string
	added   chan struct{} // closed and replaced at every line
}

func newLineSink() *lineSink {
	return &lineSink{first: make(chan string, 1), added: make(chan struct{})}
}

// await waits up to d for a line containing want.
func (s *lineSink) await(want string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for _, line := range s.all {
			if strings.Contains(line, want) {
				s.mu.Unlock()
				return true
			}
		}
		added := s.added
		s.mu.Unlock()
		select {
		case <-added:
		case <-deadline.C:
			return false
		}
	}
}

// Write splits p into lines; exec's copying goroutine calls it.
func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if len(s.all) == 0 {
			s.first <- line
		}
		s.all = append(s.all, line)
		close(s.added)
		s.added = make(chan struct{})
	}
}

// lines is every complete line so far, and the unterminated tail if any.
func (s *lineSink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.all...)
	if len(s.partial) > 0 {
		out = append(out, string(s.partial))
	}
	return out
}

func (s *lineSink) text() string { return strings.Join(s.lines(), "\n") }
