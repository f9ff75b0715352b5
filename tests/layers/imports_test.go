// Package layers checks the module's import graph against its layering
// (docs/ARCHITECTURE.md): each package may import only the module packages
// its layer allows, so the engine never reaches up into the public face,
// the broker reaches the runtime only through package weida, and nothing
// outside tests/ depends on a test helper.
package layers

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/weida-go/weida/"

// rule names the module packages a package may import: an entry ending in
// "/..." allows that package and everything below it. The rule of a package
// is the one of its longest matching name; "x/..." names cover subpackages.
var rules = map[string][]string{
	// The wire and the leaves import nothing of the module.
	"core/wire":              nil,
	"core/errs":              nil,
	"core/internal/ctxwatch": nil,
	"core/internal/lograte":  nil,
	"core/internal/faults":   nil,
	"core/identity":          {"core/errs"},
	"core/cursor":            {"core/errs", "core/wire"},
	"core/guarantee":         {"core/errs", "core/wire"},
	// The transport knows frames, identities and cursors, never the
	// runtime above it.
	"core/transport": {"core/cursor", "core/errs", "core/identity", "core/internal/ctxwatch",
		"core/internal/faults", "core/wire"},
	"core/transport/raftlayer": {"core/identity", "core/internal/lograte"},
	// Package weida, the public face: everything below it, nothing of the
	// broker, the C ABI or the CLI.
	"core": {"core/cursor", "core/errs", "core/guarantee", "core/identity", "core/internal/ctxwatch",
		"core/internal/faults", "core/internal/lograte", "core/transport", "core/wire"},
	// The broker reaches the runtime through package weida only, never
	// through the transport.
	"core/broker": {"core", "core/broker/...", "core/cursor", "core/errs", "core/guarantee", "core/identity",
		"core/internal/lograte", "core/wire"},
	"core/broker/access":        {"core/identity"},
	"core/broker/store":         {"core/errs"},
	"core/broker/store/faultfs": {"core/broker/store"},
	"core/broker/cluster": {"core/broker/access", "core/broker/store", "core/identity", "core/internal/lograte",
		"core/transport/raftlayer"},
	// The C ABI and the CLIs are users of the public packages.
	"capi": {"core", "core/cursor", "core/errs", "core/guarantee", "core/identity", "core/wire"},
	"cmd/...": {"core", "core/broker/...", "core/cursor", "core/errs", "core/guarantee", "core/identity",
		"core/wire"},
	// The test helpers' one home, the root internal/: the network and
	// logging helpers import nothing of the module, the raw quic-go
	// baseline and raw peer the layers they stand beside, the crash kit
	// the public face.
	"internal/...":      nil,
	"internal/rawquic":  {"core/identity", "core/transport"},
	"internal/rawpeer":  {"core/identity", "core/wire"},
	"internal/crashkit": {"core"},
	// The suites may use anything but the CLIs' code.
	"tests/...": {"core/...", "internal/...", "capi"},
}

// ruleFor returns the rule of pkg (a path inside the module) and whether
// one exists.
func ruleFor(pkg string) ([]string, bool) {
	best, found := "", false
	for name := range rules {
		if covers(name, pkg) && len(name) >= len(best) {
			best, found = name, true
		}
	}
	return rules[best], found
}

// covers reports whether the rule entry name ("x" or "x/...") names pkg.
func covers(name, pkg string) bool {
	if prefix, ok := strings.CutSuffix(name, "/..."); ok {
		return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
	}
	return pkg == name
}

// violations lists "pkg imports dep" for every module import the rules do
// not allow, and every package no rule names.
func violations(graph map[string][]string) []string {
	var bad []string
	for pkg, deps := range graph {
		allowed, ok := ruleFor(pkg)
		if !ok {
			bad = append(bad, pkg+": no layering rule names it (add one to tests/layers)")
			continue
		}
		for _, dep := range deps {
			permitted := false
			for _, a := range allowed {
				permitted = permitted || covers(a, dep)
			}
			if !permitted {
				bad = append(bad, pkg+" imports "+dep)
			}
		}
	}
	return bad
}

// moduleGraph is the module's non-test import graph, module paths only.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		graph[pkg] = nil
		for _, dep := range fields[1:] {
			if d, ok := strings.CutPrefix(dep, module); ok {
				graph[pkg] = append(graph[pkg], d)
			}
		}
	}
	return graph
}

func TestEveryImportFollowsTheLayering(t *testing.T) {
	graph := moduleGraph(t)
	if _, ok := graph["core/wire"]; !ok {
		t.Fatalf("go list found no core/wire among %d packages: the graph is not the module's", len(graph))
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// The rules catch what they must: an upward import, an engine package
// reaching the public face, the broker bypassing package weida, a test
// helper used outside tests/, and a package nobody placed.
func TestTheRulesRefuseWhatTheyMust(t *testing.T) {
	for _, tc := range []struct{ pkg, dep string }{
		{"core/wire", "core/errs"},
		{"core/transport", "core"},
		{"core/broker", "core/transport"},
		{"core", "core/broker"},
		{"core", "internal/crashkit"},
		{"core", "internal/rawquic"},
		{"core/broker", "internal/udpproxy"},
		{"capi", "core/internal/ctxwatch"},
		{"cmd/weida", "core/transport"},
		{"core/newthing", "core/wire"},
	} {
		if got := violations(map[string][]string{tc.pkg: {tc.dep}}); len(got) != 1 {
			t.Errorf("%s importing %s: violations %q, want one", tc.pkg, tc.dep, got)
		}
	}
	if got := violations(map[string][]string{"core/broker/cluster": {"core/transport/raftlayer"}}); len(got) != 0 {
		t.Errorf("an allowed import was refused: %q", got)
	}
}
