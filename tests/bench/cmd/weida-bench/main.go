// Command weida-bench runs weida's benchmarks against raw quic-go, NATS and
// ZeroMQ and writes the report.
//
//	weida-bench run [-smoke] [-out results.json] [-only REGEXP] [-systems a,b] [-reps N] [-cpuprofile FILE] [-child-cpuprofile PREFIX]
//	                [-repo DIR] [-weida-lib libweida.so | -weida-lib-missing REASON]
//	                [-node-package DIR | -node-missing REASON] [-weida-cli PATH | -weida-cli-missing REASON]
//	weida-bench report -in results.json -md BENCHMARKS.md -plots DIR [-analysis FILE]
//
// "run" exits non-zero when any system failed any case; "child" is the
// harness's own subprocess mode.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"

	"github.com/weida-go/weida/tests/bench/internal/harness"
	"github.com/weida-go/weida/tests/bench/internal/report"
	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/all"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := dispatch(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "weida-bench:", err)
		os.Exit(1)
	}
}

func dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: weida-bench run|report|child …")
	}
	switch args[0] {
	case "run":
		return run(ctx, args[1:])
	case "report":
		return writeReport(args[1:])
	case "child":
		return harness.RunChild(ctx, args[1:], all.ByName, os.Stdin, os.Stdout)
	}
	return fmt.Errorf("unknown command %q: want run, report or child", args[0])
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	smoke := fs.Bool("smoke", false, "tiny counts: prove every workload runs (figures mean nothing)")
	out := fs.String("out", "results.json", "where to write the results")
	only := fs.String("only", "", "run only cases whose ID matches this regular expression (e.g. ^reqrep/1MiB$)")
	systems := fs.String("systems", "", "comma-separated systems and queue stacks to run, e.g. 'weida,weida flushed' (default: all)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the harness process here")
	childProfile := fs.String("child-cpuprofile", "", "child processes write CPU profiles to PREFIX.<case>.<system>.<n>")
	reps := fs.Int("reps", 0, "repetitions per case and system, overriding the plan's (longer profiles)")
	repo := fs.String("repo", "../..", "the repository root, where the bindings' benchmark scripts are")
	lib := fs.String("weida-lib", "", "a libweida.so built from this checkout, for the bindings' scripts (their rows are skipped without it)")
	libMissing := fs.String("weida-lib-missing", "", "why there is no -weida-lib (said in the skipped bindings rows)")
	nodePackage := fs.String("node-package", "", "a copy of bindings/node with its addon built, for bench.js (the Node rows are skipped without it)")
	nodeMissing := fs.String("node-missing", "", "why there is no -node-package (said in the skipped Node rows)")
	cli := fs.String("weida-cli", "", "the weida CLI (go build ./cmd/weida) whose serve processes the bindings-vs-process rows run against (skipped without it)")
	cliMissing := fs.String("weida-cli-missing", "", "why there is no -weida-cli (said in the skipped rows)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r := &harness.Runner{Plan: harness.FullPlan(), Log: os.Stderr, ChildProfile: *childProfile,
		QueueRatios:  append(all.QueueRatios(), harness.ClusterRatios()...),
		SystemRatios: all.SystemRatios(),
		Bindings:     harness.Bindings{LibraryMissing: *libMissing, NodeMissing: *nodeMissing, CLIMissing: *cliMissing}}
	if *repo != "" {
		abs, err := filepath.Abs(*repo)
		if err != nil {
			return fmt.Errorf("-repo: %w", err)
		}
		r.Bindings.Repo = abs
	}
	// The scripts run outside the source tree: their paths must be absolute.
	for _, p := range []struct {
		flag      string
		value, to *string
	}{{"-weida-lib", lib, &r.Bindings.Library}, {"-node-package", nodePackage, &r.Bindings.NodePackage}, {"-weida-cli", cli, &r.Bindings.CLI}} {
		if *p.value == "" {
			continue
		}
		abs, err := filepath.Abs(*p.value)
		if err != nil {
			return fmt.Errorf("%s: %w", p.flag, err)
		}
		*p.to = abs
	}
	if *smoke {
		r.Plan = harness.SmokePlan()
	}
	if *reps < 0 {
		return fmt.Errorf("-reps must not be negative, got %d", *reps)
	}
	if *reps > 0 {
		r.Plan.Reps, r.Plan.BulkReps, r.Plan.IdleReps, r.Plan.BindingReps = *reps, *reps, *reps, *reps
	}
	var err error
	if r.Systems, r.Queues, err = pickSystems(*systems); err != nil {
		return err
	}
	if *only != "" {
		if r.Only, err = regexp.Compile(*only); err != nil {
			return fmt.Errorf("-only: %w", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r.Child = func(args ...string) *exec.Cmd { return exec.Command(exe, append([]string{"child"}, args...)...) }
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res := r.Run(ctx, "weida-bench "+strings.Join(append([]string{"run"}, args...), " "), *smoke)
	if err := res.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%.0f s, %d failures)\n", *out, res.Seconds, res.Failures)
	if res.Failures > 0 {
		return fmt.Errorf("%d system runs failed; see the FAILED lines above", res.Failures)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// pickSystems finds the named systems and queue stacks ("weida,NATS",
// "weida flushed"); an empty list is all of them.
func pickSystems(list string) ([]system.System, []system.QueueSystem, error) {
	queueStacks := append(all.Queues(), harness.ClusterQueues()...)
	if list == "" {
		return all.Systems(), queueStacks, nil
	}
	var systems []system.System
	var queues []system.QueueSystem
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		q, qerr := queueByName(queueStacks, name)
		if qerr == nil {
			queues = append(queues, q)
			continue
		}
		s, err := all.ByName(name)
		if err != nil {
			return nil, nil, fmt.Errorf("%w; %w", err, qerr)
		}
		systems = append(systems, s)
	}
	return systems, queues, nil
}

// queueByName finds a queue stack among stacks by its Name, ignoring case.
func queueByName(stacks []system.QueueSystem, name string) (system.QueueSystem, error) {
	var names []string
	for _, q := range stacks {
		if strings.EqualFold(q.Name(), name) {
			return q, nil
		}
		names = append(names, q.Name())
	}
	return nil, fmt.Errorf("no queue stack %q; they are %s", name, strings.Join(names, ", "))
}

func writeReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	in := fs.String("in", "results.json", "the results of one run")
	md := fs.String("md", "BENCHMARKS.md", "the Markdown report to write")
	plots := fs.String("plots", "bench", "the directory for the plots (PNG)")
	analysis := fs.String("analysis", "", "a Markdown file whose text closes the report (the profile analysis)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	res, err := harness.Load(*in)
	if err != nil {
		return err
	}
	return report.Write(res, report.Options{Markdown: *md, PlotDir: *plots, AnalysisFile: *analysis})
}
