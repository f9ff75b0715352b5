package report

import "github.com/weida-go/weida/tests/bench/internal/harness"

// ratioTable compares the pairs a group with its own columns names (a
// binding over the Go API, a weida queue over JetStream at the matching
// durability): one row per case and headline figure that some pair has.
func (w *writer) ratioTable(g *harness.Group) {
	if len(g.Ratios) == 0 {
		return
	}
	head := []string{"Case", "Figure"}
	for _, r := range g.Ratios {
		head = append(head, r.Of+" / "+r.Over)
	}
	var rows [][]string
	for ci := range g.Cases {
		c := &g.Cases[ci]
		for _, m := range g.Metrics {
			if !m.Headline {
				continue
			}
			row := []string{c.Label, metricName(m)}
			found := false
			for _, r := range g.Ratios {
				if q, ok := ratioOf(c, r.Of, r.Over, m.Key); ok {
					row = append(row, times(q))
					found = true
				} else {
					row = append(row, "—")
				}
			}
			if found {
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	w.p("Ratios (for a latency, ↓, above 1 is slower; for a rate, ↑, below 1 is slower):")
	w.p("")
	w.tableHead(head)
	for _, row := range rows {
		w.tableRow(row)
	}
	w.p("")
}
