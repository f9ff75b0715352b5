package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Results is everything one invocation measured: the ratios of a report
// are computed from one Results, never across runs.
type Results struct {
	Smoke    bool      `json:"smoke"`
	Command  string    `json:"command"`
	Started  time.Time `json:"started"`
	Seconds  float64   `json:"seconds"` // the whole run's wall time
	Machine  Machine   `json:"machine"`
	Systems  []string  `json:"systems"`
	Plan     Plan      `json:"plan"`
	Groups   []Group   `json:"groups"`
	Failures int       `json:"failures"` // system runs that ended in an error
}

// Group is one workload family (Req/Rep, one-way, …) and its cases.
type Group struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	About   string     `json:"about"` // what is measured, how, and what the figures mean
	Metrics []Metric   `json:"metrics"`
	Cases   []Case     `json:"cases"`
	Load    [3]float64 `json:"load"` // load average when the group started
	// Columns, when set, are the group's own systems (the bindings' surfaces,
	// the queue stacks at each durability), in place of the run's Systems;
	// such a group stays out of the at-a-glance table and the ranking,
	// whose ratios are weida over the four stacks.
	Columns []string `json:"columns,omitempty"`
	// Ratios are the pairs the group's section compares: among its own
	// Columns, or among the run's Systems beside the glance table's
	// weida-over-each (weida over quic-go with and without qlog).
	Ratios []Ratio `json:"ratios,omitempty"`
	// Differences are the pairs whose difference the group's section
	// shows, for its headline costs (↓): what one column adds to each
	// operation over another.
	Differences []Difference `json:"differences,omitempty"`
}

// Ratio names a quotient a report shows: Of's figure over Over's.
type Ratio struct {
	Of   string `json:"of"`
	Over string `json:"over"`
}

// Difference names a difference a report shows: Of's figure less Less's.
type Difference struct {
	Of   string `json:"of"`
	Less string `json:"less"`
}

// SystemsOf is the systems g's cases were measured on: its own Columns,
// or all of the run's.
func (r *Results) SystemsOf(g *Group) []string {
	if len(g.Columns) > 0 {
		return g.Columns
	}
	return r.Systems
}

// Metric describes one figure of a group's cases.
type Metric struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Unit  string `json:"unit"`
	// LowerIsBetter says which way is good (latency, CPU, memory).
	LowerIsBetter bool `json:"lower_is_better"`
	// Headline metrics get ratio columns in the report.
	Headline bool `json:"headline"`
	// Count marks a figure that is neither better nor worse (a sample count).
	Count bool `json:"count,omitempty"`
}

// Case is one parameter setting of a workload (a message size, a
// subscriber count) measured on every system.
type Case struct {
	ID      string    `json:"id"`
	Label   string    `json:"label"`
	Param   float64   `json:"param"` // the x value in plots: bytes or subscribers
	Systems []Outcome `json:"systems"`
}

// Outcome is one system's measurements of one case.
type Outcome struct {
	System string `json:"system"`
	Error  string `json:"error,omitempty"`
	// Skipped says why a system was not measured at all (a binding whose
	// toolchain is missing, a stack not built yet); it is not a failure.
	Skipped string `json:"skipped,omitempty"`
	// Reps holds each repetition's figures; Summary the reported ones
	// (medians over the repetitions, or percentiles over every sample).
	Reps    []map[string]float64 `json:"reps"`
	Summary map[string]float64   `json:"summary"`
}

// Outcome returns the case's outcome for system, or nil.
func (c *Case) Outcome(system string) *Outcome {
	for i := range c.Systems {
		if c.Systems[i].System == system {
			return &c.Systems[i]
		}
	}
	return nil
}

// Save writes r as indented JSON.
func (r *Results) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Load reads results written by Save.
func Load(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &r, nil
}
