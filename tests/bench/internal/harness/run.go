package harness

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Runner runs a Plan on a set of systems.
type Runner struct {
	Plan    Plan
	Systems []system.System
	// Child returns the command that runs the harness binary's child mode
	// with args.
	Child func(args ...string) *exec.Cmd
	// Only, when set, limits the run to cases whose ID it matches.
	Only *regexp.Regexp
	// ChildProfile, when set, makes every child write a CPU profile to
	// ChildProfile.<case>.<system>.<rep>.
	ChildProfile string
	// Log receives one progress line per measurement.
	Log io.Writer
	// Queues are the persistent-queue stacks, each at one storage setting;
	// QueueRatios the pairs of them the report compares.
	Queues      []system.QueueSystem
	QueueRatios []Ratio
	// SystemRatios are the pairs of Systems whose quotients the sections
	// of the run's systems show (those of systems the run has).
	SystemRatios []Ratio
	// Bindings says where the bindings' benchmark scripts are; its rows
	// are skipped, each with the reason, when it is empty.
	Bindings Bindings

	results       *Results
	childProfiles int // children asked for a profile so far, numbering their files
}

// Run measures every group and returns what it found; a system's failure
// is recorded in its outcome and counted, and the run goes on.
func (r *Runner) Run(ctx context.Context, command string, smoke bool) *Results {
	r.results = &Results{Smoke: smoke, Command: command, Started: time.Now(),
		Machine: describeMachine(), Plan: r.Plan}
	for _, s := range r.Systems {
		r.results.Systems = append(r.results.Systems, s.Name())
	}
	for _, group := range []func(context.Context) Group{
		r.reqrepGroup, r.onewayGroup, r.fanoutGroup, r.bulkGroup, r.connectGroup, r.idleGroup, r.queueGroup, r.clusterGroup, r.bindingsGroup,
		r.bindingsVsProcessGroup,
	} {
		if ctx.Err() != nil {
			break
		}
		if g := group(ctx); len(g.Cases) > 0 {
			r.results.Groups = append(r.results.Groups, g)
		}
	}
	r.results.Machine.LoadEnd = loadAverage()
	r.results.Seconds = time.Since(r.results.Started).Seconds()
	return r.results
}

// caseSpec is one case of a group before it is measured.
type caseSpec struct {
	id, label string
	param     float64
	arg       any // the group's own description of the case
}

// measurement is what one repetition found.
type measurement struct {
	figures map[string]float64
	samples []time.Duration // latencies, pooled over the repetitions into percentiles
}

// session is a case set up on one system, ready for repetitions.
type session interface {
	rep(ctx context.Context, rep int) (measurement, error)
	close() error
}

// opener sets a case up on a system; ctx lives until the session is closed.
type opener func(ctx context.Context, sys system.System, c caseSpec) (session, error)

// column is one system of a group, by name: one of the run's Systems or
// one of a group's own Columns.
type column struct {
	name    string
	skipped string // why it is not measured; empty when it is
	// skips, when set, says why a case is not measured on this column
	// (a workload the system cannot run); empty when it is.
	skips func(c caseSpec) string
	// open sets a case up on this system; ctx lives until the session is
	// closed.
	open func(ctx context.Context, c caseSpec) (session, error)
}

// skippedFor is why spec is not measured on col, or "" when it is.
func (col column) skippedFor(spec caseSpec) string {
	if col.skipped == "" && col.skips != nil {
		return col.skips(spec)
	}
	return col.skipped
}

// schedule says how repetitions and set-ups alternate.
type schedule int

const (
	// freshPerRep sets the case up again for every repetition, and lets
	// the systems take turns within each repetition, each repetition
	// starting with the next system (inTurn).
	freshPerRep schedule = iota
	// oneSetup sets the case up once per system, every system's set-up
	// open side by side, and lets the systems take turns within each
	// repetition as freshPerRep does (for set-ups too heavy to repeat).
	// Taking turns spreads a shared machine's drift over every system
	// alike; back-to-back repetitions per system gave one run's ratios
	// a swing of up to 0.3.
	oneSetup
)

// runGroup measures every case of g on every system.
func (r *Runner) runGroup(ctx context.Context, g *Group, specs []caseSpec, reps int, how schedule, open opener) {
	columns := make([]column, len(r.Systems))
	for i, s := range r.Systems {
		columns[i] = column{name: s.Name(), open: func(ctx context.Context, c caseSpec) (session, error) { return open(ctx, s, c) }}
	}
	g.Ratios = ratiosAmong(r.SystemRatios, r.Systems)
	r.runColumns(ctx, g, columns, specs, reps, how)
}

// runColumns measures every case of g on every column; a skipped column
// is recorded as skipped.
func (r *Runner) runColumns(ctx context.Context, g *Group, columns []column, specs []caseSpec, reps int, how schedule) {
	g.Load = loadAverage()
	for _, spec := range specs {
		if r.Only != nil && !r.Only.MatchString(spec.id) {
			continue
		}
		c := Case{ID: spec.id, Label: spec.label, Param: spec.param}
		samples := make([][]time.Duration, len(columns))
		for _, col := range columns {
			c.Systems = append(c.Systems, Outcome{System: col.name, Skipped: col.skippedFor(spec)})
		}
		record := func(i, rep int, m measurement, err error) {
			o := &c.Systems[i]
			if err != nil {
				o.Error = err.Error()
				r.results.Failures++
				r.logf("%s %s rep %d: FAILED: %v", spec.id, o.System, rep+1, err)
				return
			}
			o.Reps = append(o.Reps, m.figures)
			samples[i] = append(samples[i], m.samples...)
			r.logf("%s %s rep %d/%d: %s", spec.id, o.System, rep+1, reps, brief(m.figures))
		}
		switch how {
		case freshPerRep:
			for rep := range reps {
				inTurn(rep, len(columns), func(i int) {
					if c.Systems[i].Error == "" && c.Systems[i].Skipped == "" {
						m, err := r.oneRep(ctx, columns[i], spec)
						record(i, rep, m, err)
					}
				})
			}
		case oneSetup:
			r.repsInTurns(ctx, columns, spec, reps, &c, record)
		}
		for i := range c.Systems {
			o := &c.Systems[i]
			o.Summary = medianOfReps(o.Reps)
			if len(samples[i]) > 0 {
				for k, v := range latencySummary(samples[i]) {
					o.Summary[k] = v
				}
			}
		}
		g.Cases = append(g.Cases, c)
	}
}

// oneRep sets up, measures once and tears down, bounded by CaseTimeout;
// the error is the set-up's, the repetition's or the teardown's.
func (r *Runner) oneRep(ctx context.Context, col column, spec caseSpec) (measurement, error) {
	ctx, cancel := context.WithTimeout(ctx, r.Plan.CaseTimeout)
	defer cancel()
	sess, err := col.open(ctx, spec)
	if err != nil {
		return measurement{}, fmt.Errorf("setting up: %w", err)
	}
	m, err := sess.rep(ctx, 0)
	if closeErr := sess.close(); closeErr != nil && err == nil {
		return measurement{}, fmt.Errorf("tearing down: %w", closeErr)
	}
	return m, err
}

// inTurn calls f for each of n columns in repetition rep's order: each
// repetition starts with the next column, so no system always runs first,
// or right after the same other one (and in the harness's process, after
// its garbage).
func inTurn(rep, n int, f func(i int)) {
	for k := range n {
		f((rep + k) % n)
	}
}

// repsInTurns sets the case up once on every column not skipped, then runs
// reps rounds in which each column takes one repetition, handing each to
// record; a column whose set-up or repetition failed takes no more turns.
// The set-ups stay open side by side, idle but for their own turn, and are
// torn down at the end. It is bounded by CaseTimeout per column.
func (r *Runner) repsInTurns(ctx context.Context, columns []column, spec caseSpec, reps int, c *Case, record func(i, rep int, m measurement, err error)) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(len(columns))*r.Plan.CaseTimeout)
	defer cancel()
	sessions := make([]session, len(columns))
	for i, col := range columns {
		if c.Systems[i].Skipped != "" {
			continue
		}
		sess, err := col.open(ctx, spec)
		if err != nil {
			record(i, 0, measurement{}, fmt.Errorf("setting up: %w", err))
			continue
		}
		sessions[i] = sess
	}
	for rep := range reps {
		inTurn(rep, len(sessions), func(i int) {
			if sessions[i] != nil && c.Systems[i].Error == "" {
				m, err := sessions[i].rep(ctx, rep)
				record(i, rep, m, err)
			}
		})
	}
	for i, sess := range sessions {
		if sess == nil {
			continue
		}
		if err := sess.close(); err != nil && c.Systems[i].Error == "" {
			record(i, reps-1, measurement{}, fmt.Errorf("tearing down: %w", err))
		}
	}
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format+"\n", args...)
	}
}

// brief is a measurement's figures on one line, keys sorted.
func brief(figures map[string]float64) string {
	var parts []string
	for _, k := range sortedKeys(figures) {
		parts = append(parts, fmt.Sprintf("%s=%.4g", k, figures[k]))
	}
	return strings.Join(parts, " ")
}
