package harness

import (
	"math"
	"slices"
	"time"
)

// percentile is the nearest-rank q-quantile of sorted values.
func percentile[T int64 | float64 | time.Duration](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

// median is the middle of values (the mean of the two middles for an even
// count); values are not modified.
func median(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(values))
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

// latencyPercentiles are the points of the latency distributions reported.
var latencyPercentiles = []struct {
	key string
	q   float64
}{
	{"p50_us", 0.50}, {"p75_us", 0.75}, {"p90_us", 0.90}, {"p99_us", 0.99}, {"p999_us", 0.999},
}

// latencySummary is the percentiles of every sample, in microseconds.
func latencySummary(samples []time.Duration) map[string]float64 {
	s := slices.Sorted(slices.Values(samples))
	out := map[string]float64{"samples": float64(len(s))}
	for _, p := range latencyPercentiles {
		out[p.key] = micros(percentile(s, p.q))
	}
	return out
}

// medianOfReps is, for every key the repetitions recorded, the median of
// its values.
func medianOfReps(reps []map[string]float64) map[string]float64 {
	byKey := map[string][]float64{}
	for _, rep := range reps {
		for k, v := range rep {
			byKey[k] = append(byKey[k], v)
		}
	}
	out := make(map[string]float64, len(byKey))
	for k, vs := range byKey {
		out[k] = median(vs)
	}
	return out
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// mib is bytes in MiB.
func mib(bytes float64) float64 { return bytes / (1 << 20) }

func sortedDurations(d []time.Duration) []time.Duration { return slices.Sorted(slices.Values(d)) }
