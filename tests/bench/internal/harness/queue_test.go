package harness

import (
	"context"
	"io"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/jetstreamsys"
)

// unbuilt is a queue stack that cannot run here.
type unbuilt struct{}

func (unbuilt) Name() string      { return "unbuilt" }
func (unbuilt) Available() string { return "not built yet" }
func (unbuilt) StartQueue(context.Context, string, int) (system.Server, error) {
	panic("an unavailable stack was started")
}
func (unbuilt) DialProducer(context.Context, string, func(error)) (system.Producer, error) {
	panic("an unavailable stack was dialled")
}
func (unbuilt) DialConsumer(context.Context, string, int, func([]byte)) (io.Closer, error) {
	panic("an unavailable stack was dialled")
}

func TestQueueGroupMeasuresEveryCaseAndSkipsAnUnavailableStack(t *testing.T) {
	js := jetstreamsys.Queue{Storage: jetstreamsys.File}
	r := &Runner{Plan: SmokePlan(), Queues: []system.QueueSystem{unbuilt{}, js},
		QueueRatios: []Ratio{{Of: "unbuilt", Over: js.Name()}}, results: &Results{}}
	g := r.queueGroup(t.Context())
	if r.results.Failures != 0 {
		t.Fatalf("%d failures: %s", r.results.Failures, errorsOf(&Results{Groups: []Group{g}}))
	}
	// The key each case must have a positive figure for.
	want := map[string]string{
		"queue/" + queueConfirmSequential: "p99_us",
		"queue/" + queueConfirmWindowed:   "msgs_per_s",
		"queue/" + queueProduceToConsume:  "p50_us",
	}
	if len(g.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(g.Cases), len(want))
	}
	for _, c := range g.Cases {
		if o := c.Outcome("unbuilt"); o == nil || o.Skipped != "not built yet" || len(o.Reps) != 0 {
			t.Errorf("%s: the unavailable stack's outcome is %+v, want skipped and unmeasured", c.ID, o)
		}
		o := c.Outcome(js.Name())
		if o == nil || o.Summary[want[c.ID]] <= 0 {
			t.Errorf("%s: JetStream's %s is missing or not positive: %+v", c.ID, want[c.ID], o)
		}
	}
}
