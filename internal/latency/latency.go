// Package latency records operation latencies from many goroutines and
// reports their percentiles, for the figures of docs/RELIABILITY.md.
package latency

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Recorder collects latencies; it is safe for concurrent use. It keeps
// every sample: the runs it measures are bounded (at most a few million
// samples of 8 bytes).
type Recorder struct {
	mu      sync.Mutex
	samples []time.Duration
}

// Add records one latency.
func (r *Recorder) Add(d time.Duration) {
	r.mu.Lock()
	r.samples = append(r.samples, d)
	r.mu.Unlock()
}

// Since records the time elapsed since start.
func (r *Recorder) Since(start time.Time) { r.Add(time.Since(start)) }

// Summary is the distribution of the recorded latencies.
type Summary struct {
	N                        int
	P50, P90, P99, P999, Max time.Duration
}

// Summary sorts a copy of the samples and reads its percentiles
// (nearest-rank).
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	s := slices.Clone(r.samples)
	r.mu.Unlock()
	if len(s) == 0 {
		return Summary{}
	}
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.5) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Summary{N: len(s), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), P999: rank(0.999), Max: s[len(s)-1]}
}

// String is "n=… p50=… p90=… p99=… p99.9=… max=…".
func (s Summary) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v p99.9=%v max=%v", s.N, r(s.P50), r(s.P90), r(s.P99), r(s.P999), r(s.Max))
}
