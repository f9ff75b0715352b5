package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/harness"
)

// withReferences is a run of weida, quic-go and quic-go+qlog with one
// one-way case carrying the ratios that split weida's gap, and a queue
// group with the wire's ceiling beside JetStream.
func withReferences() *harness.Results {
	rate := harness.Metric{Key: "msgs_per_s", Label: "messages/s", Unit: "msg/s", Headline: true}
	res := &harness.Results{Systems: []string{"weida", "quic-go", "quic-go+qlog"}, Groups: []harness.Group{
		{ID: "oneway", Title: "One-way", Metrics: []harness.Metric{rate},
			Ratios: []harness.Ratio{{Of: "weida", Over: "quic-go"}, {Of: "weida", Over: "quic-go+qlog"}, {Of: "quic-go+qlog", Over: "quic-go"}},
			Cases: []harness.Case{{ID: "oneway/64B/1p", Label: "64B × 1", Systems: []harness.Outcome{
				{System: "weida", Summary: map[string]float64{"msgs_per_s": 30000}},
				{System: "quic-go", Summary: map[string]float64{"msgs_per_s": 120000}},
				{System: "quic-go+qlog", Summary: map[string]float64{"msgs_per_s": 60000}},
			}}}},
		{ID: "queue", Title: "Persistent queue", Metrics: []harness.Metric{rate},
			Columns: []string{"weida written", "JetStream file", "quic-go exchange"},
			Ratios:  []harness.Ratio{{Of: "weida written", Over: "JetStream file"}, {Of: "weida written", Over: "quic-go exchange"}},
			Cases: []harness.Case{
				{ID: "queue/confirm-window", Label: "64B publish, 256 in flight", Systems: []harness.Outcome{
					{System: "weida written", Summary: map[string]float64{"msgs_per_s": 40000}},
					{System: "JetStream file", Summary: map[string]float64{"msgs_per_s": 200000}},
					{System: "quic-go exchange", Summary: map[string]float64{"msgs_per_s": 80000}},
				}},
				{ID: "queue/produce-to-consume", Label: "64B produce to consume", Systems: []harness.Outcome{
					{System: "weida written", Summary: map[string]float64{"msgs_per_s": 5000}},
					{System: "JetStream file", Summary: map[string]float64{"msgs_per_s": 10000}},
					{System: "quic-go exchange", Skipped: "it stores nothing"},
				}},
			}},
	}}
	return res
}

// rendered is what write draws for res.
func rendered(res *harness.Results, write func(w *writer)) string {
	var b bytes.Buffer
	write(&writer{b: &b, res: res})
	return b.String()
}

// holdsAll fails t for each of wants that got lacks.
func holdsAll(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
}

func TestTheGlanceHasAColumnForWeidaOverQuicGoWithQlog(t *testing.T) {
	holdsAll(t, rendered(withReferences(), (*writer).glance),
		"| Workload | Figure | weida | quic-go | quic-go+qlog | weida / quic-go | weida / quic-go+qlog |",
		"| One-way: 64B × 1 | messages/s (msg/s) ↑ | 30.0 k | 120 k | 60.0 k | 0.25× | 0.50× |")
}

func TestASectionOfTheRunsSystemsSplitsTheGapToQuicGo(t *testing.T) {
	res := withReferences()
	holdsAll(t, rendered(res, func(w *writer) { w.groupSection(&res.Groups[0]) }),
		"| Case | Figure | weida / quic-go | weida / quic-go+qlog | quic-go+qlog / quic-go |",
		"| 64B × 1 | messages/s (msg/s) ↑ | 0.25× | 0.50× | 0.50× |")
}

func TestTheQueueSectionComparesWeidaWithTheWireCeiling(t *testing.T) {
	res := withReferences()
	holdsAll(t, rendered(res, func(w *writer) { w.groupSection(&res.Groups[1]) }),
		"| Case | Figure | weida written / JetStream file | weida written / quic-go exchange |",
		"| 64B publish, 256 in flight | messages/s (msg/s) ↑ | 0.20× | 0.50× |",
		"| 64B produce to consume | messages/s (msg/s) ↑ | 0.50× | — |",
		"| 64B produce to consume | quic-go exchange | skipped |",
		"- Not measured: quic-go exchange: it stores nothing")
}
