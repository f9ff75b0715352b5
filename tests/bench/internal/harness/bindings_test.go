package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFiguresReadsTheJSONLinesAndSkipsTheRest(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    map[figureKey]map[string]float64
		wantErr string
	}{
		{name: "figures among human lines",
			out: "sync reqrep-1KiB  median 100 µs\n" +
				`{"surface":"python-sync","workload":"reqrep_1k","median_us":100,"p99_us":300,"msgs_per_s":9000}` + "\n" +
				`{"surface":"python-sync","workload":"push_64b","median_us":null,"msgs_per_s":20000}` + "\n",
			want: map[figureKey]map[string]float64{
				{"python-sync", "reqrep_1k"}: {"p50_us": 100, "p99_us": 300, "msgs_per_s": 9000},
				{"python-sync", "push_64b"}:  {"msgs_per_s": 20000},
			}},
		{name: "no figures at all", out: "nothing here\n", want: map[figureKey]map[string]float64{}},
		{name: "a broken line", out: `{"surface":` + "\n", wantErr: "line 1 is not a figures line"},
		{name: "a line without its workload", out: "x\n" + `{"surface":"node"}` + "\n", wantErr: "line 2 lacks surface or workload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFigures("bench", []byte(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, want := range tt.want {
				if len(got[k]) != len(want) {
					t.Fatalf("%v: got %v, want %v", k, got[k], want)
				}
				for key, v := range want {
					if got[k][key] != v {
						t.Errorf("%v %s = %v, want %v", k, key, got[k][key], v)
					}
				}
			}
		})
	}
}

// fakeRepo is a repository root holding only the given scripts.
func fakeRepo(t *testing.T, scripts map[string]string) string {
	repo := t.TempDir()
	for path, text := range scripts {
		full := filepath.Join(repo, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func TestBindingScriptsSayWhyTheyCannotRun(t *testing.T) {
	withScripts := fakeRepo(t, map[string]string{"bindings/python/bench.py": "", "bindings/node/bench.js": ""})
	nodePackage := filepath.Join(withScripts, "bindings", "node")
	tests := []struct {
		name       string
		bindings   Bindings
		path       string // PATH for the lookups; "" keeps the harness's
		wantPython string
		wantNode   string
	}{
		{name: "no library", bindings: Bindings{Repo: withScripts, NodePackage: nodePackage},
			wantPython: "no libweida.so was given", wantNode: "no libweida.so was given"},
		{name: "the library could not be built", bindings: Bindings{Repo: withScripts, LibraryMissing: "building failed"},
			wantPython: "building failed", wantNode: "building failed"},
		{name: "no Node package", bindings: Bindings{Repo: withScripts, Library: "/lib.so"},
			wantPython: "", wantNode: "no Node package was staged"},
		{name: "the Node package could not be staged", bindings: Bindings{Repo: withScripts, Library: "/lib.so", NodeMissing: "no addon"},
			wantPython: "", wantNode: "no addon"},
		{name: "no scripts", bindings: Bindings{Repo: t.TempDir(), Library: "/lib.so", NodePackage: t.TempDir()},
			wantPython: "bindings/python/bench.py does not exist", wantNode: "bindings/node/bench.js does not exist"},
		{name: "no interpreters", bindings: Bindings{Repo: withScripts, Library: "/lib.so", NodePackage: nodePackage}, path: t.TempDir(),
			wantPython: "no python3 on PATH", wantNode: "no node on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path != "" {
				t.Setenv("PATH", tt.path)
			}
			scripts := bindingScripts(tt.bindings)
			if len(scripts) != 2 {
				t.Fatalf("%d scripts, want python and node", len(scripts))
			}
			for i, want := range []string{tt.wantPython, tt.wantNode} {
				if !strings.Contains(scripts[i].skipped, want) || (want == "") != (scripts[i].skipped == "") {
					t.Errorf("%s skipped for %q, want %q", scripts[i].path, scripts[i].skipped, want)
				}
			}
		})
	}
}

func TestBindingsGroupSetsScriptFiguresBesideGos(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	repo := fakeRepo(t, map[string]string{"bindings/python/bench.py": `import sys
assert sys.argv[1:] == ["--n", "7"], sys.argv
print("human line")
print('{"surface": "python-sync", "workload": "reqrep_1k", "median_us": 200, "p99_us": 400, "msgs_per_s": 5000}')
print('{"surface": "python-sync", "workload": "push_64b", "median_us": null, "p99_us": null, "msgs_per_s": 30000}')
print('{"surface": "python-asyncio", "workload": "reqrep_1k", "median_us": 300, "p99_us": 600, "msgs_per_s": 3000}')
`})
	plan := SmokePlan()
	plan.BindingOps, plan.BindingReps = 7, 2
	r := &Runner{Plan: plan, Bindings: Bindings{Repo: repo, Library: "/nowhere/libweida.so"}}
	r.results = &Results{Groups: []Group{{ID: "reqrep", Cases: []Case{{ID: "reqrep/1KiB", Systems: []Outcome{
		{System: "weida", Summary: map[string]float64{"p50_us": 50, "p99_us": 100, "round_trips_per_s": 20000}}}}}}}}

	g := r.bindingsGroup(t.Context())
	if want := []string{"Go", "python-sync", "python-asyncio", "node"}; strings.Join(g.Columns, ",") != strings.Join(want, ",") {
		t.Fatalf("columns %v, want %v", g.Columns, want)
	}
	tests := []struct {
		caseID, system, key string
		want                float64
		wantError, wantSkip string
	}{
		{caseID: "bindings/reqrep_1k", system: "Go", key: "msgs_per_s", want: 20000},
		{caseID: "bindings/reqrep_1k", system: "Go", key: "p50_us", want: 50},
		{caseID: "bindings/reqrep_1k", system: "python-sync", key: "p99_us", want: 400},
		{caseID: "bindings/reqrep_1k", system: "python-asyncio", key: "p50_us", want: 300},
		{caseID: "bindings/push_64b", system: "python-sync", key: "msgs_per_s", want: 30000},
		{caseID: "bindings/push_64b", system: "Go", wantSkip: "did not measure oneway/64B/1p"},
		{caseID: "bindings/push_64b", system: "python-asyncio", wantError: "bench.py gave no push_64b figures for python-asyncio"},
		{caseID: "bindings/push_64b", system: "node", wantSkip: "no Node package was staged"},
	}
	for _, tt := range tests {
		o := caseOutcome(g, tt.caseID, tt.system)
		switch {
		case o == nil:
			t.Errorf("%s has no outcome for %s", tt.caseID, tt.system)
		case tt.wantError != "" || tt.wantSkip != "":
			if !strings.Contains(o.Error, tt.wantError) || !strings.Contains(o.Skipped, tt.wantSkip) {
				t.Errorf("%s %s: error %q, skipped %q; want %q, %q", tt.caseID, tt.system, o.Error, o.Skipped, tt.wantError, tt.wantSkip)
			}
		case o.Summary[tt.key] != tt.want:
			t.Errorf("%s %s %s = %v, want %v (error %q)", tt.caseID, tt.system, tt.key, o.Summary[tt.key], tt.want, o.Error)
		}
	}
	if r.results.Failures != 1 {
		t.Errorf("%d failures, want 1 (the asyncio push figures the script left out)", r.results.Failures)
	}
}

func TestLastLinesKeepsTheLinesThatSaySomething(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want string
	}{
		{"one\ntwo\nthree\n", 2, "two / three"},
		{"Traceback\n  File \"x.py\", line 1\n    f()\n    ^^^\n\nValueError: bad\n", 2, "f() / ValueError: bad"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := lastLines(tt.text, tt.n); got != tt.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

// caseOutcome is system's outcome in g's case caseID, nil when either is
// missing.
func caseOutcome(g Group, caseID, system string) *Outcome {
	for i := range g.Cases {
		if g.Cases[i].ID == caseID {
			return g.Cases[i].Outcome(system)
		}
	}
	return nil
}
