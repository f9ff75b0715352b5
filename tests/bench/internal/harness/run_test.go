package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
)

// childEnv makes the test binary act as the harness's child process.
const childEnv = "WEIDA_BENCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := RunChild(context.Background(), os.Args[1:], lookup, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func lookup(name string) (system.System, error) {
	switch name {
	case "weida":
		return weidasys.System{}, nil
	case "broken":
		return broken{}, nil
	}
	return nil, fmt.Errorf("no system %q", name)
}

// testRunner runs plan on systems with this test binary as the child.
func testRunner(plan Plan, systems ...system.System) *Runner {
	return &Runner{Plan: plan, Systems: systems, Child: func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		return cmd
	}}
}

func TestSmokeRunMeasuresEveryCase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload on weida")
	}
	plan := SmokePlan()
	res := testRunner(plan, weidasys.System{}).Run(t.Context(), "test", true)
	if res.Failures != 0 {
		t.Fatalf("%d failures: %s", res.Failures, errorsOf(res))
	}
	want := map[string]int{"reqrep": len(plan.ReqRepSizes), "oneway": len(plan.OneWay),
		"fanout": len(plan.FanOutSubscribers), "bulk": 1, "connect": 1, "idle": 1,
		"bindings": len(bindingWorkloads), "bindings-vs-process": len(bindingWorkloads)}
	for _, g := range res.Groups {
		if len(g.Cases) != want[g.ID] {
			t.Errorf("group %s has %d cases, want %d", g.ID, len(g.Cases), want[g.ID])
		}
		delete(want, g.ID)
		if len(g.Columns) > 0 {
			continue // its own systems, tested on their own
		}
		m := g.Metrics[0]
		for _, c := range g.Cases {
			if v, ok := c.Systems[0].Summary[m.Key]; !ok || v <= 0 {
				t.Errorf("%s: %s = %v, want a positive figure", c.ID, m.Key, v)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("groups missing from the results: %v", want)
	}
}

func TestFailuresAreRecordedAndTheRunGoesOn(t *testing.T) {
	plan := SmokePlan()
	plan.CaseTimeout = 10 * time.Second
	res := testRunner(plan, broken{}).Run(t.Context(), "test", true)
	cases := 0
	for _, g := range res.Groups {
		if len(g.Columns) > 0 {
			continue // the bindings: no script was given, nothing ran
		}
		for _, c := range g.Cases {
			cases++
			if o := c.Systems[0]; !strings.Contains(o.Error, "broken on purpose") {
				t.Errorf("%s: error %q, want the system's own", c.ID, o.Error)
			}
		}
	}
	if cases == 0 || res.Failures != cases {
		t.Fatalf("%d failures over %d cases, want one per case", res.Failures, cases)
	}
}

func errorsOf(res *Results) string {
	var out []string
	for _, g := range res.Groups {
		for _, c := range g.Cases {
			for _, o := range c.Systems {
				if o.Error != "" {
					out = append(out, c.ID+" "+o.System+": "+o.Error)
				}
			}
		}
	}
	return strings.Join(out, "; ")
}

// broken is a system whose every operation fails.
type broken struct{}

var errBroken = errors.New("broken on purpose")

func (broken) Name() string { return "broken" }
func (broken) StartEcho(context.Context, int) (system.Server, error) {
	return nil, errBroken
}
func (broken) DialEcho(context.Context, string, int) (system.Requester, error) {
	return nil, errBroken
}
func (broken) StartSink(context.Context, int, func(int, error)) (system.Server, error) {
	return nil, errBroken
}
func (broken) DialSource(context.Context, string) (system.Sender, error) { return nil, errBroken }
func (broken) StartPublisher(context.Context, int) (system.Publisher, error) {
	return nil, errBroken
}
func (broken) DialSubscribers(context.Context, string, int, int, func(int, []byte)) (io.Closer, error) {
	return nil, errBroken
}
func (broken) StartBulkSink(context.Context, func(int64, error)) (system.Server, error) {
	return nil, errBroken
}
func (broken) DialBulk(context.Context, string) (system.BulkSender, error) { return nil, errBroken }
