package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// traced is a session that logs what the runner asks of it.
type traced struct {
	name    string
	log     *[]string
	failRep int // the repetition that fails; -1: none
}

func (s *traced) rep(_ context.Context, rep int) (measurement, error) {
	*s.log = append(*s.log, fmt.Sprintf("%s rep %d", s.name, rep))
	if rep == s.failRep {
		return measurement{}, errors.New("broken repetition")
	}
	return measurement{figures: map[string]float64{"rep": float64(rep)}}, nil
}

func (s *traced) close() error {
	*s.log = append(*s.log, s.name+" close")
	return nil
}

// oneSetup opens every system's set-up first, then lets the systems take
// turns in each repetition, as freshPerRep does, each repetition starting
// with the next system, so a machine's drift falls on all of them alike; a
// system that fails takes no more turns and the others go on.
func TestOneSetupTakesTurnsAcrossSystems(t *testing.T) {
	var log []string
	measured := func(name string, failRep int) column {
		return column{name: name, open: func(context.Context, caseSpec) (session, error) {
			log = append(log, name+" open")
			return &traced{name: name, log: &log, failRep: failRep}, nil
		}}
	}
	columns := []column{measured("a", -1), measured("b", 1), {name: "c", skipped: "cannot"}}
	r := &Runner{Plan: SmokePlan(), results: &Results{}}
	var g Group
	r.runColumns(t.Context(), &g, columns, []caseSpec{{id: "case"}}, 3, oneSetup)
	// Each repetition starts with the next system: a b (c), b (c) a, (c) a (b).
	want := []string{"a open", "b open", "a rep 0", "b rep 0", "b rep 1", "a rep 1", "a rep 2", "a close", "b close"}
	if !slices.Equal(log, want) {
		t.Fatalf("the runner did\n%q\nwant\n%q", log, want)
	}
	got := g.Cases[0].Systems
	if len(got[0].Reps) != 3 || got[0].Error != "" {
		t.Errorf("a: %d repetitions, error %q; want 3 and none", len(got[0].Reps), got[0].Error)
	}
	if len(got[1].Reps) != 1 || got[1].Error == "" {
		t.Errorf("b: %d repetitions, error %q; want 1 and its failure", len(got[1].Reps), got[1].Error)
	}
	if got[2].Skipped == "" || len(got[2].Reps) != 0 {
		t.Errorf("c: skipped %q with %d repetitions; want skipped, none run", got[2].Skipped, len(got[2].Reps))
	}
}
