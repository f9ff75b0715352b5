package brokercrash

import (
	"os"
	"testing"

	"github.com/weida-go/weida/internal/crashkit"
)

// weidaBinary is the weida CLI that TestMain built for this test binary.
var weidaBinary string

// TestMain builds the weida CLI once, so every test runs the same real
// binary as a child process.
func TestMain(m *testing.M) {
	crashkit.Main(m, "brokercrash", os.Getenv(raceEnv) != "", &weidaBinary)
}

// The run's size and seed come from the environment so the heavy run and a
// replay need no code change.
const (
	// killsEnv sets the number of SIGKILLs; the full run is 25.
	killsEnv = "WEIDA_CRASH_KILLS"
	// seedEnv replays a run: the test prints the seed it used.
	seedEnv = "WEIDA_CRASH_SEED"
	// raceEnv, when set, builds the child with -race: a race it reports
	// lands on its stderr, which the test fails on.
	raceEnv = "WEIDA_CRASH_RACE"
	// defaultKills keeps the test command fast.
	defaultKills = 3
)

// crashKills is the number of kills this run makes.
func crashKills(t *testing.T) int {
	t.Helper()
	return crashkit.EnvInt(t, killsEnv, defaultKills)
}

// crashSeed is the seed of every random choice: WEIDA_CRASH_SEED, or the
// clock. The test logs it, so a failure can be replayed (the kill points
// are random, the process scheduling is not replayable).
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	return crashkit.Seed(t, seedEnv)
}
