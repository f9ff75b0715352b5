package harness

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Bindings says where the language bindings' benchmark scripts and the
// library they load are.
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
}

// goSurface is the bindings group's column for the Go API's own figures.
const goSurface = "Go"

// bindingCasePrefix starts the ID of every bindings case; the rest is the
// scripts' workload name.
const bindingCasePrefix = "bindings/"

// bindingWorkload is one workload every bindings script measures, and the
// Go case of the same run it is compared with.
type bindingWorkload struct {
	key    string // the scripts' "workload" value
	label  string
	goCase string // the ID of the weida case measured through the Go API
	goRate string // the Go case's rate key, reported as msgs_per_s
}

var bindingWorkloads = []bindingWorkload{
	{key: "reqrep_1k", label: "1 KiB Req/Rep round trip", goCase: "reqrep/1KiB", goRate: "round_trips_per_s"},
	{key: "push_64b", label: "64 B push, one producer", goCase: "oneway/64B/1p", goRate: "msgs_per_s"},
}

// bindingsGroup runs each binding's benchmark script and sets its figures
// beside the Go API's for the same workloads, measured earlier in this run.
func (r *Runner) bindingsGroup(ctx context.Context) Group {
	scripts := bindingScripts(r.Bindings)
	g := Group{ID: "bindings", Title: "From the bindings",
		About: fmt.Sprintf("The same two workloads from Python (sync and asyncio surfaces) and Node, each script run %d× "+
			"with %d operations per figure, against a libweida.so built from this checkout. Each script keeps both ends in one "+
			"process over QUIC on loopback, one connection established before the clock starts, round trips and sends one after "+
			"another (bindings/python/bench.py, bindings/node/bench.js); the Go column is weida's own rows of this run "+
			"(Req/Rep 1KiB and one-way 64B × 1 producer); Node also times each push. Figures are medians over the script runs; a script's median and p99 are "+
			"its own over its operations.", r.Plan.BindingReps, r.Plan.BindingOps),
		Metrics: []Metric{
			{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "p99_us", Label: "p99", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "msgs_per_s", Label: "round trips or messages/s", Unit: "/s", Headline: true},
		},
		Columns: []string{goSurface}}
	for _, s := range scripts {
		for _, surface := range s.surfaces {
			g.Columns = append(g.Columns, surface)
			g.Ratios = append(g.Ratios, Ratio{Of: surface, Over: goSurface})
		}
	}
	g.Load = loadAverage()
	cases := make([]Case, 0, len(bindingWorkloads))
	for _, w := range bindingWorkloads {
		c := Case{ID: bindingCasePrefix + w.key, Label: w.label}
		if r.Only != nil && !r.Only.MatchString(c.ID) {
			continue
		}
		c.Systems = append(c.Systems, r.goOutcome(w))
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return g
	}
	for _, s := range scripts {
		for _, surface := range s.surfaces {
			for i := range cases {
				cases[i].Systems = append(cases[i].Systems, Outcome{System: surface, Skipped: s.skipped})
			}
		}
	}
	for rep := range r.Plan.BindingReps {
		for _, s := range scripts {
			if s.skipped == "" {
				r.bindingRep(ctx, s, rep, cases)
			}
		}
	}
	for ci := range cases {
		for oi := range cases[ci].Systems {
			if o := &cases[ci].Systems[oi]; o.System != goSurface {
				o.Summary = medianOfReps(o.Reps)
			}
		}
	}
	g.Cases = cases
	return g
}

// goOutcome is weida's outcome of w's Go case, its rate renamed to the
// bindings' key; skipped when this run did not measure it.
func (r *Runner) goOutcome(w bindingWorkload) Outcome {
	o := Outcome{System: goSurface}
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

// bindingRep runs script s once and records its figures in cases; a
// failed run is recorded against every surface of s.
func (r *Runner) bindingRep(ctx context.Context, s bindingScript, rep int, cases []Case) {
	ctx, cancel := context.WithTimeout(ctx, r.Plan.CaseTimeout)
	defer cancel()
	began := time.Now()
	figures, err := s.run(ctx, r.Plan.BindingOps)
	for ci := range cases {
		c := &cases[ci]
		key := strings.TrimPrefix(c.ID, bindingCasePrefix)
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
				o.Error = fmt.Sprintf("%s printed no %s figures for %s", s.path, key, surface)
			}
			if o.Error != "" {
				r.results.Failures++
				r.logf("%s %s rep %d: FAILED: %s", c.ID, surface, rep+1, o.Error)
				continue
			}
			o.Reps = append(o.Reps, f)
			r.logf("%s %s rep %d/%d: %s", c.ID, surface, rep+1, r.Plan.BindingReps, brief(f))
		}
	}
	r.logf("%s: rep %d took %.1f s", s.path, rep+1, time.Since(began).Seconds())
}
