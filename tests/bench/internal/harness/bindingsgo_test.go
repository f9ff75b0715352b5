package harness

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
)

// buildCLI builds the checkout's weida CLI into a temporary directory.
func buildCLI(t *testing.T) string {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH to build the weida CLI")
	}
	cli := filepath.Join(t.TempDir(), "weida")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", cli, "./cmd/weida")
	build.Dir = filepath.Join("..", "..", "..", "..") // the repository root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the weida CLI: %v\n%s", err, out)
	}
	return cli
}

func TestGoClientMeasuresBothWorkloadsAgainstServeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the weida CLI and runs it")
	}
	const ops = 20
	figures, err := measureGoClient(t.Context(), weidasys.System{}, buildCLI(t), ops)
	if err != nil {
		t.Fatal(err)
	}
	for _, workload := range []string{"reqrep_1k", "push_64b"} {
		f, ok := figures[figureKey{goSurface, workload}]
		if !ok {
			t.Errorf("no %s figures", workload)
			continue
		}
		for _, key := range []string{"p50_us", "p99_us", "msgs_per_s"} {
			if f[key] <= 0 {
				t.Errorf("%s %s = %v, want a positive figure", workload, key, f[key])
			}
		}
		if f["p50_us"] > f["p99_us"] {
			t.Errorf("%s median %v above its p99 %v", workload, f["p50_us"], f["p99_us"])
		}
	}
}
