package harness

import (
	"cmp"
	"context"
	"fmt"
)

// bindingsVsProcessGroup measures each binding's client, and the Go API's,
// against the same kind of server: `weida serve --echo` and `--sink`
// processes of the Go CLI, started afresh for every surface's run. The
// server side then costs every surface the same, so a binding's figure
// less Go's is the binding's own cost per operation.
func (r *Runner) bindingsVsProcessGroup(ctx context.Context) Group {
	sources := []figureSource{r.goClientSource()}
	for _, s := range processScripts(r.Bindings) {
		sources = append(sources, s.source())
	}
	g := Group{ID: "bindings-vs-process", Title: "The bindings' client cost, against server processes",
		About: fmt.Sprintf("The same two workloads with only the client in the binding. Every client has the same server: "+
			"`weida serve --echo` and `weida serve --sink` processes of the Go CLI built from this checkout, a fresh pair for "+
			"each client's run. The clients are the Go API (weida.Requester and weida.Pusher in the harness process, default "+
			"Config), Python (bench.py --server process: sync and asyncio) and Node (bench.js --server process), taking turns "+
			"in each of %d repetitions (Go, then Python, then Node) of %d operations per figure. One connection is established "+
			"and one untimed warm-up sent before the clock starts; round trips and sends go one after another; a push run ends "+
			"when the sink has written all %d × 64 B to its stdout, which the client's process reads. A push's median and p99 "+
			"are one send's time. Time per operation is 1 s over the rate: the mean round trip, or a message's share of the "+
			"push run. Figures are medians over the repetitions. The differences (binding − Go) are the binding's own client "+
			"cost per operation; the previous section's binding rows also carry the binding's server side. One limit: the sink "+
			"process writes each transfer whole to its stdout, small ones that arrive together in one write, at some 85–100 k "+
			"messages/s on the 2-core machine; where Go and a binding both reach that rate, their push rates and times per "+
			"operation agree and only the per-send times tell the binding's cost.", r.Plan.BindingReps, r.Plan.BindingOps, r.Plan.BindingOps),
		Metrics: append(bindingMetrics(),
			Metric{Key: "us_per_op", Label: "time per operation", Unit: "µs", LowerIsBetter: true, Headline: true}),
		Columns: []string{goSurface}}
	addSourceColumns(&g, sources)
	for _, surface := range g.Columns[1:] {
		g.Differences = append(g.Differences, Difference{Of: surface, Less: goSurface})
	}
	g.Load = loadAverage()
	cases := r.bindingCases(g.ID)
	r.measureSources(ctx, cases, sources)
	g.Cases = cases
	return g
}

// processScripts are the bindings' scripts run with --server process
// against the run's weida CLI, skipped also when there is none.
func processScripts(b Bindings) []bindingScript {
	scripts := bindingScripts(b)
	for i := range scripts {
		s := &scripts[i]
		s.args = []string{"--server", "process", "--weida", b.CLI}
		if s.skipped == "" && b.CLI == "" {
			s.skipped = cliMissing(b)
		}
	}
	return scripts
}

// cliMissing says why the run has no weida CLI.
func cliMissing(b Bindings) string {
	return cmp.Or(b.CLIMissing, "no weida CLI was given (-weida-cli; build/bench.sh builds one)")
}

// goClientSource is the Go API's client against serve processes, or why
// it cannot run: no CLI, or weida not among the run's systems.
func (r *Runner) goClientSource() figureSource {
	s := figureSource{name: "the Go client", surfaces: []string{goSurface}}
	var weida goClient
	for _, sys := range r.Systems {
		if sys.Name() == "weida" {
			weida = sys
		}
	}
	switch {
	case r.Bindings.CLI == "":
		s.skipped = cliMissing(r.Bindings)
	case weida == nil:
		s.skipped = "weida was not among this run's systems"
	default:
		cli := r.Bindings.CLI
		s.measure = func(ctx context.Context, ops int) (map[figureKey]map[string]float64, error) {
			return measureGoClient(ctx, weida, cli, ops)
		}
	}
	return s
}
