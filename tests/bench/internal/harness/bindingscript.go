package harness

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// bindingScript is one binding's benchmark script and the surfaces it
// reports, or why it cannot run here.
type bindingScript struct {
	interpreter string   // the program that runs it: python3, node
	path        string   // the script as the report names it, in the repository
	file        string   // the script this run runs
	surfaces    []string // the "surface" values it prints
	args        []string // after --n N: the server the script runs against
	env         []string // added to the harness's environment
	skipped     string   // why it does not run; empty when it does
}

// bindingScripts are the bindings' scripts, each with the reason it is
// skipped when its interpreter, its script or its library is missing.
func bindingScripts(b Bindings) []bindingScript {
	python := bindingScript{interpreter: "python3", path: "bindings/python/bench.py",
		file: filepath.Join(b.Repo, "bindings", "python", "bench.py"), surfaces: []string{"python-sync", "python-asyncio"},
		env: []string{"PYTHONPATH=" + filepath.Join(b.Repo, "bindings", "python"), "WEIDA_LIBRARY=" + b.Library,
			"PYTHONDONTWRITEBYTECODE=1"}}
	// NODE_PATH lets a script that requires "weida" find the staged package.
	node := bindingScript{interpreter: "node", path: "bindings/node/bench.js",
		file: filepath.Join(b.NodePackage, "bench.js"), surfaces: []string{"node"},
		env: []string{"NODE_PATH=" + filepath.Dir(b.NodePackage)}}
	switch {
	case b.Library == "":
		python.skipped = cmp.Or(b.LibraryMissing, "no libweida.so was given (-weida-lib; build/bench.sh builds one)")
		node.skipped = python.skipped
	case b.Repo == "":
		python.skipped = "no repository root was given (-repo)"
	default:
		python.skipped = python.missing()
	}
	switch {
	case node.skipped != "":
	case b.NodePackage == "":
		node.skipped = cmp.Or(b.NodeMissing, "no Node package was staged (-node-package; build/bench.sh stages one)")
	default:
		node.skipped = node.missing()
	}
	return []bindingScript{python, node}
}

// missing says what this machine lacks to run s, or "".
func (s *bindingScript) missing() string {
	if _, err := os.Stat(s.file); err != nil {
		return fmt.Sprintf("%s does not exist in this checkout", s.path)
	}
	if _, err := exec.LookPath(s.interpreter); err != nil {
		return fmt.Sprintf("no %s on PATH", s.interpreter)
	}
	return ""
}

// source is s as a bindings group runs it.
func (s bindingScript) source() figureSource {
	return figureSource{name: s.path, surfaces: s.surfaces, skipped: s.skipped, measure: s.run}
}

// figureKey finds one line of a script's output: a surface's figures for
// a workload.
type figureKey struct{ surface, workload string }

// scriptLine is the JSON line a script prints per surface and workload;
// a figure the workload does not have is absent or null.
type scriptLine struct {
	Surface  string   `json:"surface"`
	Workload string   `json:"workload"`
	MedianUS *float64 `json:"median_us"`
	P99US    *float64 `json:"p99_us"`
	MsgsPerS *float64 `json:"msgs_per_s"`
}

// run runs the script with ops operations per figure and returns its
// figures by surface and workload, in the harness's keys.
func (s *bindingScript) run(ctx context.Context, ops int) (map[figureKey]map[string]float64, error) {
	cmd := exec.CommandContext(ctx, s.interpreter, append([]string{s.file, "--n", strconv.Itoa(ops)}, s.args...)...)
	// Outside the source tree, so a package is found only where the
	// environment points and nothing is written beside the sources.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), s.env...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", s.path, err, lastLines(stderr.String(), 3))
	}
	return parseFigures(s.path, stdout.Bytes())
}

// parseFigures reads the JSON lines of a script's output (lines starting
// with "{"; the rest is its human-readable report).
func parseFigures(script string, out []byte) (map[figureKey]map[string]float64, error) {
	figures := map[figureKey]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var l scriptLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("%s: output line %d is not a figures line: %w", script, n, err)
		}
		if l.Surface == "" || l.Workload == "" {
			return nil, fmt.Errorf("%s: output line %d lacks surface or workload: %s", script, n, line)
		}
		f := map[string]float64{}
		for key, v := range map[string]*float64{"p50_us": l.MedianUS, "p99_us": l.P99US, "msgs_per_s": l.MsgsPerS} {
			if v != nil {
				f[key] = *v
			}
		}
		figures[figureKey{l.Surface, l.Workload}] = f
	}
	return figures, sc.Err()
}

// lastLines is the last n lines of text that say something (not blank,
// not a traceback's ^~~~ markers), joined with " / " for a one-line error.
func lastLines(text string, n int) string {
	var lines []string
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Trim(line, " \t^~") != "" {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
