package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Bindings says where the language bindings' benchmark scripts, the
// library they load and the weida CLI their server processes run are.
type Bindings struct {
	// Repo is the repository root, holding bindings/python/bench.py and
	// the Python package beside it.
	Repo string
	// Library is a libweida.so built from the same checkout, handed to
	// Python as WEIDA_LIBRARY; empty skips every binding row with
	// LibraryMissing as the reason.
	Library        string
	LibraryMissing string
	// NodePackage is a copy of bindings/node with its addon built (the
	// addon links its own copy of the library), so bench.js finds the
	// package as it would installed; empty skips the Node rows with
	// NodeMissing as the reason.
	NodePackage string
	NodeMissing string
	// CLI is the weida command (go build ./cmd/weida) whose `serve --echo`
	// and `serve --sink` processes the bindings-vs-process group's clients
	// talk to; empty skips that group with CLIMissing as the reason.
	CLI        string
	CLIMissing string
}

// goSurface is the bindings groups' column for the Go API's own figures.
const goSurface = "Go"

// bindingWorkload is one workload every bindings script measures, and the
// Go case of the same run the in-process group compares it with.
type bindingWorkload struct {
	key    string // the scripts' "workload" value, the last part of a case ID
	label  string
	goCase string // the ID of the weida case measured through the Go API
	goRate string // the Go case's rate key, reported as msgs_per_s
}

var bindingWorkloads = []bindingWorkload{
	{key: "reqrep_1k", label: "1 KiB Req/Rep round trip", goCase: "reqrep/1KiB", goRate: "round_trips_per_s"},
	{key: "push_64b", label: "64 B push, one producer", goCase: "oneway/64B/1p", goRate: "msgs_per_s"},
}

// bindingCases are a bindings group's cases, IDs "<group>/<workload key>",
// those the run's -only filter leaves.
func (r *Runner) bindingCases(groupID string) []Case {
	var cases []Case
	for _, w := range bindingWorkloads {
		c := Case{ID: groupID + "/" + w.key, Label: w.label}
		if r.Only == nil || r.Only.MatchString(c.ID) {
			cases = append(cases, c)
		}
	}
	return cases
}

// workloadOf is the workload key of a bindings case ID.
func workloadOf(caseID string) string {
	_, key, _ := strings.Cut(caseID, "/")
	return key
}

// figureSource is something that measures one or more surfaces of a
// bindings group per call: a binding's script, or the Go client.
type figureSource struct {
	name     string   // as logs and errors name it: the script's path, "the Go client"
	surfaces []string // the columns it fills
	skipped  string   // why it does not run; empty when it does
	// measure runs it once with ops operations per figure and returns its
	// figures by surface and workload, in the harness's keys.
	measure func(ctx context.Context, ops int) (map[figureKey]map[string]float64, error)
}

// bindingsGroup runs each binding's benchmark script with both ends in its
// own process and sets its figures beside the Go API's for the same
// workloads, measured earlier in this run.
func (r *Runner) bindingsGroup(ctx context.Context) Group {
	var sources []figureSource
	for _, s := range bindingScripts(r.Bindings) {
		sources = append(sources, s.source())
	}
	g := Group{ID: "bindings", Title: "From the bindings",
		About: fmt.Sprintf("The same two workloads from Python (sync and asyncio surfaces) and Node, each script run %d× "+
			"with %d operations per figure, against a libweida.so built from this checkout. Each script keeps both ends in one "+
			"process over QUIC on loopback, one connection established before the clock starts, round trips and sends one after "+
			"another (bindings/python/bench.py, bindings/node/bench.js): a whole service in the binding, its server side "+
			"included, so these rows are not the binding's client cost alone (the next section is). The Go column is weida's own rows of this run "+
			"(Req/Rep 1KiB and one-way 64B × 1 producer), whose push has no per-send times; a script's push median and p99 are one send's time. Figures are medians over the script runs; a script's median and p99 are "+
			"its own over its operations.", r.Plan.BindingReps, r.Plan.BindingOps),
		Metrics: bindingMetrics(),
		Columns: []string{goSurface}}
	addSourceColumns(&g, sources)
	g.Load = loadAverage()
	cases := r.bindingCases(g.ID)
	for i := range cases {
		cases[i].Systems = append(cases[i].Systems, r.goOutcome(cases[i].ID))
	}
	r.measureSources(ctx, cases, sources)
	g.Cases = cases
	return g
}

// bindingMetrics are the figures of the bindings groups.
func bindingMetrics() []Metric {
	return []Metric{
		{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true},
		{Key: "p99_us", Label: "p99", Unit: "µs", LowerIsBetter: true, Headline: true},
		{Key: "msgs_per_s", Label: "round trips or messages/s", Unit: "/s", Headline: true},
	}
}

// addSourceColumns adds every surface of sources to g as a column
// compared over the Go column.
func addSourceColumns(g *Group, sources []figureSource) {
	for _, s := range sources {
		for _, surface := range s.surfaces {
			if surface == goSurface {
				continue
			}
			g.Columns = append(g.Columns, surface)
			g.Ratios = append(g.Ratios, Ratio{Of: surface, Over: goSurface})
		}
	}
}

// goOutcome is weida's outcome of the Go case of the bindings case caseID,
// its rate renamed to the bindings' key; skipped when this run did not
// measure it.
func (r *Runner) goOutcome(caseID string) Outcome {
	o := Outcome{System: goSurface}
	i := slices.IndexFunc(bindingWorkloads, func(w bindingWorkload) bool { return w.key == workloadOf(caseID) })
	if i < 0 {
		o.Error = fmt.Sprintf("%s is no bindings workload", caseID)
		return o
	}
	w := bindingWorkloads[i]
	for gi := range r.results.Groups {
		for ci := range r.results.Groups[gi].Cases {
			c := &r.results.Groups[gi].Cases[ci]
			if c.ID != w.goCase {
				continue
			}
			weida := c.Outcome("weida")
			switch {
			case weida == nil:
				o.Skipped = "weida was not among this run's systems"
			case weida.Error != "":
				o.Error = weida.Error
			default:
				o.Summary = map[string]float64{}
				for _, k := range []string{"p50_us", "p99_us"} {
					if v, ok := weida.Summary[k]; ok {
						o.Summary[k] = v
					}
				}
				if v, ok := weida.Summary[w.goRate]; ok {
					o.Summary["msgs_per_s"] = v
				}
			}
			return o
		}
	}
	o.Skipped = fmt.Sprintf("this run did not measure %s", w.goCase)
	return o
}

// measureSources runs every source once per repetition, in turn (so the
// machine's background load falls on all of them alike), records their
// figures in cases and sums each outcome up as the median over its
// repetitions. An outcome already in a case is left as it is.
func (r *Runner) measureSources(ctx context.Context, cases []Case, sources []figureSource) {
	if len(cases) == 0 {
		return
	}
	for _, s := range sources {
		for _, surface := range s.surfaces {
			for i := range cases {
				cases[i].Systems = append(cases[i].Systems, Outcome{System: surface, Skipped: s.skipped})
			}
		}
	}
	for rep := range r.Plan.BindingReps {
		for _, s := range sources {
			if s.skipped == "" {
				r.sourceRep(ctx, s, rep, cases)
			}
		}
	}
	for ci := range cases {
		for _, s := range sources {
			for _, surface := range s.surfaces {
				if o := cases[ci].Outcome(surface); o.Skipped == "" {
					o.Summary = medianOfReps(o.Reps)
				}
			}
		}
	}
}

// sourceRep runs s once and records its figures in cases; a failed run
// is recorded against every surface of s, and an outcome that failed
// records no later repetition.
func (r *Runner) sourceRep(ctx context.Context, s figureSource, rep int, cases []Case) {
	ctx, cancel := context.WithTimeout(ctx, r.Plan.CaseTimeout)
	defer cancel()
	began := time.Now()
	figures, err := s.measure(ctx, r.Plan.BindingOps)
	for ci := range cases {
		c := &cases[ci]
		key := workloadOf(c.ID)
		for _, surface := range s.surfaces {
			o := c.Outcome(surface)
			if o.Error != "" {
				continue
			}
			f, ok := figures[figureKey{surface, key}]
			switch {
			case err != nil:
				o.Error = err.Error()
			case !ok:
				o.Error = fmt.Sprintf("%s gave no %s figures for %s", s.name, key, surface)
			}
			if o.Error != "" {
				r.results.Failures++
				r.logf("%s %s rep %d: FAILED: %s", c.ID, surface, rep+1, o.Error)
				continue
			}
			o.Reps = append(o.Reps, withTimePerOperation(f))
			r.logf("%s %s rep %d/%d: %s", c.ID, surface, rep+1, r.Plan.BindingReps, brief(f))
		}
	}
	r.logf("%s: rep %d took %.1f s", s.name, rep+1, time.Since(began).Seconds())
}

// withTimePerOperation adds to figures the time one operation took on
// average, 1 s over the rate: the mean round trip, or a message's share
// of the time it took to push them all. Unlike the rate it subtracts
// meaningfully, one surface's from another's.
func withTimePerOperation(figures map[string]float64) map[string]float64 {
	if rate, ok := figures["msgs_per_s"]; ok && rate > 0 {
		figures["us_per_op"] = 1e6 / rate
	}
	return figures
}
