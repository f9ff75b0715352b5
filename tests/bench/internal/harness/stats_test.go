package harness

import (
	"math"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	sorted := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	tests := []struct {
		q    float64
		want int64
	}{
		{0, 10}, {0.1, 10}, {0.11, 20}, {0.5, 50}, {0.9, 90}, {0.99, 100}, {1, 100},
	}
	for _, tt := range tests {
		if got := percentile(sorted, tt.q); got != tt.want {
			t.Errorf("percentile(q=%v) = %d, want %d", tt.q, got, tt.want)
		}
	}
	if got := percentile([]int64{}, 0.5); got != 0 {
		t.Errorf("percentile of nothing = %d, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{"odd count", []float64{3, 1, 2}, 2},
		{"even count averages the middles", []float64{4, 1, 3, 2}, 2.5},
		{"one value", []float64{7}, 7},
	}
	for _, tt := range tests {
		if got := median(tt.values); got != tt.want {
			t.Errorf("%s: median = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median of nothing = %v, want NaN", got)
	}
	values := []float64{3, 1, 2}
	median(values)
	if values[0] != 3 {
		t.Errorf("median reordered its input: %v", values)
	}
}

func TestLatencySummary(t *testing.T) {
	var samples []time.Duration
	for i := 1000; i >= 1; i-- { // unsorted on purpose
		samples = append(samples, time.Duration(i)*time.Microsecond)
	}
	got := latencySummary(samples)
	want := map[string]float64{"samples": 1000, "p50_us": 500, "p75_us": 750, "p90_us": 900, "p99_us": 990, "p999_us": 999}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestMedianOfReps(t *testing.T) {
	reps := []map[string]float64{{"a": 1, "b": 10}, {"a": 3, "b": 30}, {"a": 2}}
	got := medianOfReps(reps)
	if got["a"] != 2 || got["b"] != 20 {
		t.Fatalf("medianOfReps = %v, want a=2 (odd count) and b=20 (only two reps had it)", got)
	}
}
