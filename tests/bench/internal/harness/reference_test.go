package harness

import (
	"slices"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/quicsys"
)

func TestQueueGroupMeasuresTheWireCeilingAndSkipsItsConsumerCase(t *testing.T) {
	exchange := quicsys.Queue{}
	r := &Runner{Plan: SmokePlan(), Queues: []system.QueueSystem{exchange}, results: &Results{}}
	g := r.queueGroup(t.Context())
	if r.results.Failures != 0 {
		t.Fatalf("%d failures: %s", r.results.Failures, errorsOf(&Results{Groups: []Group{g}}))
	}
	if len(g.Cases) != 3 {
		t.Fatalf("%d cases, want 3", len(g.Cases))
	}
	for _, c := range g.Cases {
		o := c.Outcome(exchange.Name())
		if o == nil {
			t.Fatalf("%s: no outcome for %s", c.ID, exchange.Name())
		}
		if c.ID == "queue/"+queueProduceToConsume {
			if o.Skipped != exchange.WithoutConsumer() || len(o.Reps) != 0 {
				t.Errorf("%s: outcome %+v, want skipped with %q and unmeasured", c.ID, o, exchange.WithoutConsumer())
			}
			continue
		}
		if o.Skipped != "" || o.Summary["msgs_per_s"] <= 0 {
			t.Errorf("%s: outcome %+v, want a positive rate", c.ID, o)
		}
	}
}

func TestGroupsOfTheRunsSystemsCarryTheRatiosAmongThem(t *testing.T) {
	raw, traced := quicsys.System{}, quicsys.System{Traced: true}
	ratios := []Ratio{{Of: "weida", Over: raw.Name()}, {Of: "weida", Over: traced.Name()}, {Of: traced.Name(), Over: raw.Name()}}
	r := testRunner(SmokePlan(), raw, traced)
	r.SystemRatios, r.results = ratios, &Results{}
	g := r.connectGroup(t.Context())
	if r.results.Failures != 0 {
		t.Fatalf("%d failures: %s", r.results.Failures, errorsOf(&Results{Groups: []Group{g}}))
	}
	// weida is not in this run: only the pair of the two quic-go columns.
	if want := ratios[2:]; !slices.Equal(g.Ratios, want) {
		t.Errorf("ratios %v, want %v", g.Ratios, want)
	}
	for _, s := range []string{raw.Name(), traced.Name()} {
		if o := g.Cases[0].Outcome(s); o == nil || o.Summary["p50_us"] <= 0 {
			t.Errorf("%s's connect outcome is %+v, want a positive median", s, o)
		}
	}
}
