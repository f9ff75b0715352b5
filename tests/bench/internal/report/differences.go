package report

import "github.com/weida-go/weida/tests/bench/internal/harness"

// differenceOf is of's figure less less's, false when either is missing.
func differenceOf(c *harness.Case, of, less, metric string) (float64, bool) {
	a, ok1 := value(c, of, metric)
	b, ok2 := value(c, less, metric)
	if !ok1 || !ok2 {
		return 0, false
	}
	return a - b, true
}

// differenceTable shows the differences a group names (a binding less the
// Go API against the same server): one row per case and headline cost (↓)
// that some pair has. A rate is left out: what one column adds to each
// operation is a difference of times, not of rates.
func (w *writer) differenceTable(g *harness.Group) {
	cols := make([]pairColumn, 0, len(g.Differences))
	for _, d := range g.Differences {
		cols = append(cols, pairColumn{head: d.Of + " − " + d.Less, cell: func(c *harness.Case, m harness.Metric) (string, bool) {
			v, ok := differenceOf(c, d.Of, d.Less, m.Key)
			return withUnit(signed(v), m.Unit), ok
		}})
	}
	if len(cols) == 0 {
		return
	}
	w.pairTable(g, "Differences (the first column's figure less the second's: for a time, what the first adds to each operation):",
		func(m harness.Metric) bool { return m.LowerIsBetter }, cols)
}
