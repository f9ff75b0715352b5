package harness

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
)

func TestProcessScriptsRunAgainstTheCLIOrSayWhyNot(t *testing.T) {
	repo := fakeRepo(t, map[string]string{"bindings/python/bench.py": "", "bindings/node/bench.js": ""})
	nodePackage := filepath.Join(repo, "bindings", "node")
	tests := []struct {
		name     string
		bindings Bindings
		wantSkip string // for both scripts
	}{
		{name: "with a CLI", bindings: Bindings{Repo: repo, Library: "/lib.so", NodePackage: nodePackage, CLI: "/bin/weida"}},
		{name: "no CLI", bindings: Bindings{Repo: repo, Library: "/lib.so", NodePackage: nodePackage}, wantSkip: "no weida CLI was given"},
		{name: "the CLI could not be built", bindings: Bindings{Repo: repo, Library: "/lib.so", NodePackage: nodePackage, CLIMissing: "go build failed"},
			wantSkip: "go build failed"},
		{name: "a missing library says so first", bindings: Bindings{Repo: repo, NodePackage: nodePackage}, wantSkip: "no libweida.so was given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range processScripts(tt.bindings) {
				if !strings.Contains(s.skipped, tt.wantSkip) || (tt.wantSkip == "") != (s.skipped == "") {
					t.Errorf("%s skipped for %q, want %q", s.path, s.skipped, tt.wantSkip)
				}
				if want := []string{"--server", "process", "--weida", tt.bindings.CLI}; !slices.Equal(s.args, want) {
					t.Errorf("%s args %q, want %q", s.path, s.args, want)
				}
			}
		})
	}
}

func TestBindingsVsProcessGroupComparesEachSurfaceWithGo(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	repo := fakeRepo(t, map[string]string{"bindings/python/bench.py": `import sys
assert sys.argv[1:] == ["--n", "7", "--server", "process", "--weida", "/bin/weida"], sys.argv
print('{"surface": "python-sync", "workload": "reqrep_1k", "median_us": 200, "p99_us": 400, "msgs_per_s": 4000}')
print('{"surface": "python-sync", "workload": "push_64b", "median_us": null, "p99_us": null, "msgs_per_s": 20000}')
print('{"surface": "python-asyncio", "workload": "reqrep_1k", "median_us": 300, "p99_us": 600, "msgs_per_s": 2500}')
print('{"surface": "python-asyncio", "workload": "push_64b", "median_us": null, "p99_us": null, "msgs_per_s": 8000}')
`})
	plan := SmokePlan()
	plan.BindingOps, plan.BindingReps = 7, 2
	// No systems: the Go client has no weida to measure with.
	r := &Runner{Plan: plan, Bindings: Bindings{Repo: repo, Library: "/nowhere/libweida.so", CLI: "/bin/weida"}}
	r.results = &Results{}

	g := r.bindingsVsProcessGroup(t.Context())
	if want := []string{"Go", "python-sync", "python-asyncio", "node"}; !slices.Equal(g.Columns, want) {
		t.Fatalf("columns %v, want %v", g.Columns, want)
	}
	wantDifferences := []Difference{{Of: "python-sync", Less: "Go"}, {Of: "python-asyncio", Less: "Go"}, {Of: "node", Less: "Go"}}
	if !slices.Equal(g.Differences, wantDifferences) {
		t.Errorf("differences %v, want %v", g.Differences, wantDifferences)
	}
	tests := []struct {
		caseID, system, key string
		want                float64
		wantSkip            string
	}{
		{caseID: "bindings-vs-process/reqrep_1k", system: "python-sync", key: "p50_us", want: 200},
		{caseID: "bindings-vs-process/reqrep_1k", system: "python-sync", key: "us_per_op", want: 250},
		{caseID: "bindings-vs-process/push_64b", system: "python-asyncio", key: "us_per_op", want: 125},
		{caseID: "bindings-vs-process/push_64b", system: "python-asyncio", key: "msgs_per_s", want: 8000},
		{caseID: "bindings-vs-process/reqrep_1k", system: "Go", wantSkip: "weida was not among this run's systems"},
		{caseID: "bindings-vs-process/push_64b", system: "node", wantSkip: "no Node package was staged"},
	}
	for _, tt := range tests {
		o := caseOutcome(g, tt.caseID, tt.system)
		switch {
		case o == nil:
			t.Errorf("%s has no outcome for %s", tt.caseID, tt.system)
		case tt.wantSkip != "":
			if !strings.Contains(o.Skipped, tt.wantSkip) {
				t.Errorf("%s %s: skipped %q, want %q", tt.caseID, tt.system, o.Skipped, tt.wantSkip)
			}
		case o.Summary[tt.key] != tt.want || len(o.Reps) != plan.BindingReps:
			t.Errorf("%s %s %s = %v over %d reps, want %v over %d (error %q)", tt.caseID, tt.system, tt.key,
				o.Summary[tt.key], len(o.Reps), tt.want, plan.BindingReps, o.Error)
		}
	}
	if r.results.Failures != 0 {
		t.Errorf("%d failures, want none", r.results.Failures)
	}
}

func TestGoClientSourceSaysWhyItCannotRun(t *testing.T) {
	tests := []struct {
		name     string
		runner   Runner
		wantSkip string // "" when it runs
	}{
		{name: "a CLI and weida", runner: Runner{Bindings: Bindings{CLI: "/bin/weida"}, Systems: []system.System{weidasys.System{}}}},
		{name: "no CLI", runner: Runner{Systems: []system.System{weidasys.System{}}}, wantSkip: "no weida CLI was given"},
		{name: "the CLI could not be built", runner: Runner{Bindings: Bindings{CLIMissing: "go build failed"}}, wantSkip: "go build failed"},
		{name: "weida left out of the run", runner: Runner{Bindings: Bindings{CLI: "/bin/weida"}, Systems: []system.System{broken{}}},
			wantSkip: "weida was not among this run's systems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.runner.goClientSource()
			if !strings.Contains(s.skipped, tt.wantSkip) || (tt.wantSkip == "") != (s.skipped == "") {
				t.Errorf("skipped for %q, want %q", s.skipped, tt.wantSkip)
			}
			if (s.measure == nil) != (s.skipped != "") {
				t.Errorf("measure set: %v, skipped %q; want a measure exactly when it runs", s.measure != nil, s.skipped)
			}
		})
	}
}
