package report

import (
	"bytes"
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
