// Package crashkit is what the crash suites (tests/brokercrash and
// tests/clustercrash) share: the weida binary they run as child
// processes, their environment knobs, the child process and its output
// read as lines, and the pieces of a message ledger both keep.
package crashkit

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

const (
	// MaxDelivery is the consumers' receive ceiling: above every body sent.
	MaxDelivery = 1 << 20
	// UnlimitedCredit is a standing grant a run never exhausts.
	UnlimitedCredit = 1 << 40
)

// ClientConfig is the producers' and consumers' runtime: it notices a
// killed broker within a second and redials quickly. A SIGKILLed process
// sends no CONNECTION_CLOSE; until a successor with the same key listens
// on its port (and resets them: the reset key derives from the identity),
// only the idle timeout (the lower of the two sides' values) ends its
// connections: 1 s here, kept alive every 250 ms.
var ClientConfig = weida.Config{
	Limits:    weida.Limits{IdleTimeout: time.Second, KeepAlive: 250 * time.Millisecond},
	Reconnect: weida.ReconnectPolicy{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond},
}

// Main builds the weida CLI once, into a directory named after suite and
// removed afterwards, sets *binary to its path, runs the tests and exits
// with their status: every test runs the same real binary as a child
// process. race builds it with -race, so a race it reports lands on its
// stderr.
func Main(m *testing.M, suite string, race bool, binary *string) {
	dir, err := os.MkdirTemp("", "weida-"+suite+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot make a directory for the weida binary:", err)
		os.Exit(1)
	}
	*binary = filepath.Join(dir, "weida")
	args := []string{"build", "-o", *binary}
	if race {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/weida-go/weida/cmd/weida")...)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build of the weida binary failed: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// EnvInt is the positive integer in the environment variable name, or
// fallback when it is unset; anything else fails the test.
func EnvInt(t testing.TB, name string, fallback int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return fallback
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// Seed is the seed of a run's random choices: the environment variable
// name, or the clock. The suites log it, so a failure can be replayed
// (the kill points are random, the process scheduling is not replayable).
func Seed(t testing.TB, name string) uint64 {
	t.Helper()
	return uint64(EnvInt(t, name, int(time.Now().UnixNano()&0x7fffffffffff)))
}

// FreeUDPPort is a loopback UDP port nobody held a moment ago.
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
