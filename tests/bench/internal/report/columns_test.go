package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// withQueueGroup is a run with one ordinary group and one with its own
// columns: two weida queues over one JetStream setting, one skipped.
func withQueueGroup() *harness.Results {
	res := results(harness.Metric{Key: "p50_us", LowerIsBetter: true}, map[string]float64{"weida": 2, "quic-go": 1, "NATS": 1, "ZeroMQ": 1})
	rate := harness.Metric{Key: "msgs_per_s", Label: "messages/s", Headline: true}
	res.Groups = append(res.Groups, harness.Group{ID: "queue", Title: "Persistent queue", Metrics: []harness.Metric{rate},
		Columns: []string{"weida written", "weida flushed", "JetStream file"},
		Ratios:  []harness.Ratio{{Of: "weida written", Over: "JetStream file"}, {Of: "weida flushed", Over: "JetStream file"}},
		Cases: []harness.Case{{ID: "queue/confirm", Label: "64B publish", Systems: []harness.Outcome{
			{System: "weida written", Summary: map[string]float64{"msgs_per_s": 3000}},
			{System: "weida flushed", Skipped: "the broker is not built yet"},
			{System: "JetStream file", Summary: map[string]float64{"msgs_per_s": 12000}},
		}}}})
	return res
}

func TestAGroupWithItsOwnColumnsStaysOutOfTheGlanceAndTheRanking(t *testing.T) {
	res := withQueueGroup()
	for _, g := range gaps(res) {
		if g.Group == "Persistent queue" {
			t.Errorf("the ranking holds %+v, a group with its own columns", g)
		}
	}
	var b bytes.Buffer
	w := &writer{b: &b, res: res}
	w.glance()
	if strings.Contains(b.String(), "Persistent queue") {
		t.Errorf("the glance table holds the queue group:\n%s", b.String())
	}
}

func TestAGroupSectionShowsItsColumnsSkipsAndRatios(t *testing.T) {
	res := withQueueGroup()
	var b bytes.Buffer
	w := &writer{b: &b, res: res}
	w.groupSection(&res.Groups[1])
	got := b.String()
	for _, want := range []string{
		"| 64B publish | weida written | 3000 |",
		"| 64B publish | weida flushed | skipped |",
		"| 64B publish | JetStream file | 12.0 k |",
		"- Not measured: weida flushed: the broker is not built yet",
		"| Case | Figure | weida written / JetStream file | weida flushed / JetStream file |",
		"| 64B publish | messages/s ↑ | 0.25× | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the section lacks %q:\n%s", want, got)
		}
	}
}

func TestQueuePlotIsDrawnOnlyWhenSomethingWasMeasured(t *testing.T) {
	measured := func(figures map[string]float64) []harness.Outcome {
		return []harness.Outcome{{System: "weida flushed", Summary: figures}, {System: "JetStream file", Skipped: "not here"}}
	}
	tests := []struct {
		name     string
		figures  map[string]float64
		wantFile bool
	}{
		{"rates and latencies", map[string]float64{"msgs_per_s": 900, "p50_us": 300, "p99_us": 900}, true},
		{"nothing measured", map[string]float64{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &harness.Results{Groups: []harness.Group{{ID: "queue", Columns: []string{"weida flushed", "JetStream file"},
				Cases: []harness.Case{
					{ID: "queue/confirm-1", Systems: measured(tt.figures)},
					{ID: "queue/produce-to-consume", Systems: measured(tt.figures)},
				}}}}
			dir := t.TempDir()
			p, err := queuePlot(res, dir)
			if err != nil {
				t.Fatal(err)
			}
			if (p != nil) != tt.wantFile {
				t.Fatalf("plot %+v, want one: %v", p, tt.wantFile)
			}
			if p != nil {
				if _, err := os.Stat(filepath.Join(dir, p.File)); err != nil {
					t.Fatalf("the plot was not written: %v", err)
				}
			}
		})
	}
}

func TestADifferenceTableSubtractsTheCostsOnly(t *testing.T) {
	latency := harness.Metric{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true}
	perOp := harness.Metric{Key: "us_per_op", Label: "time per operation", Unit: "µs", LowerIsBetter: true, Headline: true}
	rate := harness.Metric{Key: "msgs_per_s", Label: "messages/s", Unit: "/s", Headline: true}
	res := &harness.Results{Groups: []harness.Group{{ID: "bindings-vs-process", Title: "Client cost",
		Metrics: []harness.Metric{latency, perOp, rate}, Columns: []string{"Go", "python-sync", "node"},
		Differences: []harness.Difference{{Of: "python-sync", Less: "Go"}, {Of: "node", Less: "Go"}},
		Cases: []harness.Case{
			{ID: "b/reqrep_1k", Label: "1 KiB Req/Rep", Systems: []harness.Outcome{
				{System: "Go", Summary: map[string]float64{"p50_us": 100, "us_per_op": 110, "msgs_per_s": 9000}},
				{System: "python-sync", Summary: map[string]float64{"p50_us": 250, "us_per_op": 260, "msgs_per_s": 4000}},
				{System: "node", Summary: map[string]float64{"p50_us": 90, "us_per_op": 110}},
			}},
			{ID: "b/push_64b", Label: "64 B push", Systems: []harness.Outcome{
				{System: "Go", Summary: map[string]float64{"us_per_op": 20}},
				{System: "python-sync", Summary: map[string]float64{"us_per_op": 66.5}},
				{System: "node", Error: "bench.js crashed"},
			}},
		}}}}
	var b bytes.Buffer
	w := &writer{b: &b, res: res}
	w.groupSection(&res.Groups[0])
	got := b.String()
	for _, want := range []string{
		"| Case | Figure | python-sync − Go | node − Go |",
		"| 1 KiB Req/Rep | median (µs) ↓ | +150 µs | −10.0 µs |",
		"| 1 KiB Req/Rep | time per operation (µs) ↓ | +150 µs | 0 µs |",
		"| 64 B push | time per operation (µs) ↓ | +46.5 µs | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the section lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"| 64 B push | median (µs) ↓ | —", "| messages/s ↑ | +"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the section holds %q (a row no pair has, or a rate subtracted):\n%s", unwanted, got)
		}
	}
}
