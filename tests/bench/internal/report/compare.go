package report

import (
	"math"
	"slices"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// subject is the system every ratio is about.
const subject = "weida"

// value is one system's summary figure for metric, and whether it exists.
func value(c *harness.Case, system, metric string) (float64, bool) {
	o := c.Outcome(system)
	if o == nil || o.Error != "" {
		return 0, false
	}
	v, ok := o.Summary[metric]
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// ratio is weida's figure over peer's, false when either is missing or the
// peer's is zero.
func ratio(c *harness.Case, peer, metric string) (float64, bool) {
	return ratioOf(c, subject, peer, metric)
}

// ratioOf is of's figure over over's, false when either is missing or
// over's is zero.
func ratioOf(c *harness.Case, of, over, metric string) (float64, bool) {
	a, ok1 := value(c, of, metric)
	b, ok2 := value(c, over, metric)
	if !ok1 || !ok2 || b == 0 {
		return 0, false
	}
	return a / b, true
}

// behind is how many times worse weida's figure is than peer's (below 1:
// better), whichever way the metric points.
func behind(weida, peer float64, m harness.Metric) float64 {
	if m.LowerIsBetter {
		return weida / peer
	}
	return peer / weida
}

// Gap is how far weida is behind the best other system on one case.
type Gap struct {
	Group, Case string
	Metric      harness.Metric
	Peer        string  // the best other system on this metric
	Factor      float64 // weida is Factor times worse than Peer (below 1: better)
	Weida, Best float64
}

// primary is a group's ranking metric: its first headline metric.
func primary(g *harness.Group) (harness.Metric, bool) {
	for _, m := range g.Metrics {
		if m.Headline {
			return m, true
		}
	}
	return harness.Metric{}, false
}

// gaps is, for every case, weida against the best other system on the
// group's primary metric, worst first.
func gaps(res *harness.Results) []Gap {
	var out []Gap
	for gi := range res.Groups {
		g := &res.Groups[gi]
		m, ok := primary(g)
		if !ok || len(g.Columns) > 0 {
			continue
		}
		for ci := range g.Cases {
			c := &g.Cases[ci]
			w, ok := value(c, subject, m.Key)
			if !ok || w == 0 {
				continue
			}
			gap := Gap{Group: g.Title, Case: c.Label, Metric: m, Weida: w}
			for _, peer := range res.Systems {
				p, ok := value(c, peer, m.Key)
				if peer == subject || !ok || p == 0 {
					continue
				}
				if f := behind(w, p, m); gap.Peer == "" || f > gap.Factor {
					gap.Peer, gap.Factor, gap.Best = peer, f, p
				}
			}
			if gap.Peer != "" {
				out = append(out, gap)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Gap) int {
		switch {
		case a.Factor > b.Factor:
			return -1
		case a.Factor < b.Factor:
			return 1
		}
		return 0
	})
	return out
}

// worstPerGroup keeps each group's first gap: with gaps sorted worst
// first, the case where weida is furthest behind in that workload.
func worstPerGroup(sorted []Gap) []Gap {
	seen := map[string]bool{}
	var out []Gap
	for _, g := range sorted {
		if !seen[g.Group] {
			seen[g.Group] = true
			out = append(out, g)
		}
	}
	return out
}
