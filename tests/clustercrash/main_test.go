package clustercrash

import (
	"os"
	"testing"

	"github.com/weida-go/weida/internal/crashkit"
)

// weidaBinary is the weida CLI that TestMain built for this test binary.
var weidaBinary string

// TestMain builds the weida CLI once, so every member runs the same real
// binary as a child process.
func TestMain(m *testing.M) {
	crashkit.Main(m, "clustercrash", false, &weidaBinary)
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

// runSeed is WEIDA_CLUSTER_SEED, or the clock; the test logs it.
func runSeed(t *testing.T) uint64 {
	t.Helper()
	return crashkit.Seed(t, seedEnv)
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
