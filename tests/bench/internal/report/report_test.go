package report

import (
	"math"
	"testing"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/harness"
	"github.com/weida-go/weida/tests/bench/wakeup"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.012345, "0.0123"}, {1.2345, "1.23"}, {123.45, "123"}, {1234.5, "1235"},
		{12345, "12.3 k"}, {999499, "999 k"}, {1234567, "1.23 M"}, {math.NaN(), "—"},
	}
	for _, tt := range tests {
		if got := number(tt.v); got != tt.want {
			t.Errorf("number(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestSigned(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {12.345, "+12.3"}, {-0.456, "−0.456"}, {-12345, "−12.3 k"},
	}
	for _, tt := range tests {
		if got := signed(tt.v); got != tt.want {
			t.Errorf("signed(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// results builds a run with one group whose primary metric is given.
func results(m harness.Metric, figures map[string]float64, failed ...string) *harness.Results {
	c := harness.Case{ID: "g/x", Label: "x"}
	res := &harness.Results{}
	for _, s := range []string{"weida", "quic-go", "NATS", "ZeroMQ"} {
		res.Systems = append(res.Systems, s)
		o := harness.Outcome{System: s, Summary: map[string]float64{}}
		if v, ok := figures[s]; ok {
			o.Summary[m.Key] = v
		}
		for _, f := range failed {
			if f == s {
				o.Error = "failed"
			}
		}
		c.Systems = append(c.Systems, o)
	}
	m.Headline = true
	res.Groups = []harness.Group{{ID: "g", Title: "G", Metrics: []harness.Metric{m}, Cases: []harness.Case{c}}}
	return res
}

func TestGapsPickTheBestPeerWhicheverWayTheMetricPoints(t *testing.T) {
	latency := harness.Metric{Key: "p50_us", LowerIsBetter: true}
	rate := harness.Metric{Key: "msgs_per_s"}
	tests := []struct {
		name       string
		res        *harness.Results
		wantPeer   string
		wantFactor float64
	}{
		{"latency: the lowest peer is best", results(latency, map[string]float64{"weida": 100, "quic-go": 50, "NATS": 25, "ZeroMQ": 40}), "NATS", 4},
		{"rate: the highest peer is best", results(rate, map[string]float64{"weida": 100, "quic-go": 200, "NATS": 50, "ZeroMQ": 400}), "ZeroMQ", 4},
		{"weida ahead gives a factor below 1", results(rate, map[string]float64{"weida": 100, "quic-go": 50, "NATS": 20, "ZeroMQ": 25}), "quic-go", 0.5},
		{"a failed peer is ignored", results(latency, map[string]float64{"weida": 100, "quic-go": 50, "NATS": 1, "ZeroMQ": 60}, "NATS"), "quic-go", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gaps(tt.res)
			if len(got) != 1 || got[0].Peer != tt.wantPeer || got[0].Factor != tt.wantFactor {
				t.Fatalf("gaps = %+v, want one gap to %s of %v×", got, tt.wantPeer, tt.wantFactor)
			}
		})
	}
}

func TestGapsSkipACaseWeidaFailed(t *testing.T) {
	res := results(harness.Metric{Key: "p50_us", LowerIsBetter: true}, map[string]float64{"weida": 1, "NATS": 2}, "weida")
	if got := gaps(res); len(got) != 0 {
		t.Fatalf("gaps = %+v, want none when weida has no figure", got)
	}
}

func TestRatio(t *testing.T) {
	res := results(harness.Metric{Key: "k"}, map[string]float64{"weida": 3, "quic-go": 6, "NATS": 0})
	c := &res.Groups[0].Cases[0]
	if r, ok := ratio(c, "quic-go", "k"); !ok || r != 0.5 {
		t.Errorf("ratio to quic-go = %v, %v; want 0.5", r, ok)
	}
	if _, ok := ratio(c, "NATS", "k"); ok {
		t.Error("a ratio to a zero figure exists, want none")
	}
	if _, ok := ratio(c, "ZeroMQ", "k"); ok {
		t.Error("a ratio to a missing figure exists, want none")
	}
}

func TestWorstPerGroupKeepsEachWorkloadsWorstCase(t *testing.T) {
	sorted := []Gap{{Group: "A", Case: "a1", Factor: 9}, {Group: "B", Case: "b1", Factor: 5}, {Group: "A", Case: "a2", Factor: 4}, {Group: "C", Case: "c1", Factor: 2}}
	got := worstPerGroup(sorted)
	want := []string{"a1", "b1", "c1"}
	if len(got) != len(want) {
		t.Fatalf("worstPerGroup = %+v, want cases %v", got, want)
	}
	for i, g := range got {
		if g.Case != want[i] {
			t.Errorf("position %d: case %s, want %s", i, g.Case, want[i])
		}
	}
}

func TestWakeupText(t *testing.T) {
	tests := []struct {
		name string
		m    harness.Machine
		want string
	}{
		{"both", harness.Machine{Wakeup: wakeup.Figures{AcrossCPUs: 33500 * time.Nanosecond, SameCPU: 1450 * time.Nanosecond}},
			"33.5 µs from another CPU, 1.4 µs on the waker's CPU (a binding operation that waits pays two)"},
		{"one CPU", harness.Machine{Wakeup: wakeup.Figures{SameCPU: 2 * time.Microsecond}},
			"2.0 µs on the waker's CPU (a binding operation that waits pays two)"},
		{"failed", harness.Machine{WakeupErr: "wakeup: cannot read this thread's CPU affinity"},
			"not measured: wakeup: cannot read this thread's CPU affinity"},
		{"absent", harness.Machine{}, "not measured"},
	}
	for _, tt := range tests {
		if got := wakeupText(tt.m); got != tt.want {
			t.Errorf("%s: wakeupText = %q, want %q", tt.name, got, tt.want)
		}
	}
}
