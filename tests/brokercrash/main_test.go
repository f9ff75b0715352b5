package brokercrash

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

// TestMain builds the weida CLI once, into a directory removed afterwards,
// so every test runs the same real binary as a child process.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weida-brokercrash-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot make a directory for the weida binary:", err)
		os.Exit(1)
	}
	weidaBinary = filepath.Join(dir, "weida")
	args := []string{"build", "-o", weidaBinary}
	if os.Getenv(raceEnv) != "" {
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
	return envInt(t, killsEnv, defaultKills)
}

// crashSeed is the seed of every random choice: WEIDA_CRASH_SEED, or the
// clock. The test logs it, so a failure can be replayed (the kill points
// are random, the process scheduling is not replayable).
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	return uint64(envInt(t, seedEnv, int(time.Now().UnixNano()&0x7fffffffffff)))
}

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
