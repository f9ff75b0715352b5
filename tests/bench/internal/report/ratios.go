package report

import "github.com/weida-go/weida/tests/bench/internal/harness"

// pairColumn is one column of a pair table: its heading and the cell it
// shows for a case and metric, false when either figure is missing.
type pairColumn struct {
	head string
	cell func(c *harness.Case, m harness.Metric) (string, bool)
}

// pairTable writes one row per case and headline metric (those include
// keeps) for which some column has a cell, under intro; nothing at all
// when no row has one.
func (w *writer) pairTable(g *harness.Group, intro string, include func(harness.Metric) bool, cols []pairColumn) {
	head := []string{"Case", "Figure"}
	for _, col := range cols {
		head = append(head, col.head)
	}
	var rows [][]string
	for ci := range g.Cases {
		c := &g.Cases[ci]
		for _, m := range g.Metrics {
			if !m.Headline || !include(m) {
				continue
			}
			row := []string{c.Label, metricName(m)}
			found := false
			for _, col := range cols {
				text, ok := col.cell(c, m)
				if !ok {
					text = "—"
				}
				found = found || ok
				row = append(row, text)
			}
			if found {
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	w.p(intro)
	w.p("")
	w.tableHead(head)
	for _, row := range rows {
		w.tableRow(row)
	}
	w.p("")
}

// ratioTable compares the pairs a group with its own columns names (a
// binding over the Go API, a weida queue over JetStream at the matching
// durability): one row per case and headline figure that some pair has.
func (w *writer) ratioTable(g *harness.Group) {
	cols := make([]pairColumn, 0, len(g.Ratios))
	for _, r := range g.Ratios {
		cols = append(cols, pairColumn{head: r.Of + " / " + r.Over, cell: func(c *harness.Case, m harness.Metric) (string, bool) {
			q, ok := ratioOf(c, r.Of, r.Over, m.Key)
			return times(q), ok
		}})
	}
	if len(cols) == 0 {
		return
	}
	w.pairTable(g, "Ratios (for a latency, ↓, above 1 is slower; for a rate, ↑, below 1 is slower):",
		func(harness.Metric) bool { return true }, cols)
}
