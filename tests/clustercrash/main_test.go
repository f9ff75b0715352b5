package clustercrash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// weidaBinary is the weida CLI that TestMain built for this test binary.
var weidaBinary string

// TestMain builds the weida CLI once, so every member runs the same real
// binary as a child process.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weida-clustercrash-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot make a directory for the weida binary:", err)
		os.Exit(1)
	}
	weidaBinary = filepath.Join(dir, "weida")
	build := exec.Command("go", "build", "-o", weidaBinary, "github.com/weida-go/weida/cmd/weida")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build of the weida binary failed: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The run's size, seed and idle window come from the environment, so the
// heavy run and a replay need no code change.
const (
	killsEnv = "WEIDA_CLUSTER_KILLS"
	seedEnv  = "WEIDA_CLUSTER_SEED"
	idleEnv  = "WEIDA_CLUSTER_IDLE"
	largeEnv = "WEIDA_CLUSTER_LARGE"
	// durabilityEnv is the queue's durability: flushed (the default) or
	// written.
	durabilityEnv = "WEIDA_CLUSTER_DURABILITY"
	defaultKills  = 3
)

func envInt(t *testing.T, name string, fallback int) int {
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

// runSeed is WEIDA_CLUSTER_SEED, or the clock; the test logs it.
func runSeed(t *testing.T) uint64 {
	t.Helper()
	return uint64(envInt(t, seedEnv, int(time.Now().UnixNano()&0x7fffffffffff)))
}

// queueDurability is WEIDA_CLUSTER_DURABILITY, flushed by default.
func queueDurability(t *testing.T) string {
	t.Helper()
	switch d := os.Getenv(durabilityEnv); d {
	case "":
		return "flushed"
	case "flushed", "written":
		return d
	default:
		t.Fatalf("%s=%q: want flushed or written", durabilityEnv, d)
		return ""
	}
}
