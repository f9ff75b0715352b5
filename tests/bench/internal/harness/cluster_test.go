package harness

import (
	"slices"
	"testing"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// unbuiltReplicated is a replicated queue stack that cannot run here.
type unbuiltReplicated struct{ unbuilt }

func (unbuiltReplicated) Name() string  { return "unbuilt R3" }
func (unbuiltReplicated) Replicas() int { return 3 }

// lonely is a single-node stack no ratio pairs with a replicated one.
type lonely struct{ unbuilt }

func (lonely) Name() string { return "lonely" }

func TestClusterGroupMeasuresTheReplicatedStacksAndWhatTheyAreComparedWith(t *testing.T) {
	r3 := jetStreamR3{}
	ratios := []Ratio{{Of: "unbuilt R3", Over: r3.Name()}, {Of: "unbuilt R3", Over: "unbuilt"}, {Of: "lonely", Over: "unbuilt"}}
	r := &Runner{Plan: SmokePlan(), Queues: []system.QueueSystem{unbuilt{}, lonely{}, unbuiltReplicated{}, r3},
		QueueRatios: ratios, results: &Results{}}
	g := r.clusterGroup(t.Context())
	if r.results.Failures != 0 {
		t.Fatalf("%d failures: %s", r.results.Failures, errorsOf(&Results{Groups: []Group{g}}))
	}
	// Replicated first, then the single-node stack a ratio compares them with.
	if want := []string{"unbuilt R3", r3.Name(), "unbuilt"}; !slices.Equal(g.Columns, want) {
		t.Errorf("columns %q, want %q", g.Columns, want)
	}
	if want := ratios[:2]; !slices.Equal(g.Ratios, want) {
		t.Errorf("ratios %v, want %v", g.Ratios, want)
	}
	// Both confirm cases at every size, each with the figure it exists for.
	want := map[string]string{}
	for _, size := range clusterSizes {
		label := sizeLabel(int64(size))
		want["replicated-queue/"+label+"/"+queueConfirmSequential] = "p99_us"
		want["replicated-queue/"+label+"/"+queueConfirmWindowed] = "msgs_per_s"
	}
	if len(g.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(g.Cases), len(want))
	}
	for _, c := range g.Cases {
		key, ok := want[c.ID]
		if !ok {
			t.Errorf("unexpected case %s", c.ID)
			continue
		}
		for _, name := range []string{"unbuilt R3", "unbuilt"} {
			if o := c.Outcome(name); o == nil || o.Skipped != "not built yet" || len(o.Reps) != 0 {
				t.Errorf("%s: %s's outcome is %+v, want skipped and unmeasured", c.ID, name, o)
			}
		}
		for _, key := range []string{key, "cpu_us_per_msg"} {
			if o := c.Outcome(r3.Name()); o == nil || o.Summary[key] <= 0 {
				t.Errorf("%s: JetStream R3's %s is missing or not positive: %+v", c.ID, key, o)
			}
		}
	}
}

func TestQueueGroupLeavesTheReplicatedStacksToTheirOwnGroup(t *testing.T) {
	ratios := []Ratio{{Of: "unbuilt R3", Over: "unbuilt"}, {Of: "lonely", Over: "unbuilt"}}
	r := &Runner{Plan: SmokePlan(), Queues: []system.QueueSystem{unbuilt{}, lonely{}, unbuiltReplicated{}},
		QueueRatios: ratios, results: &Results{}}
	g := r.queueGroup(t.Context())
	if want := []string{"unbuilt", "lonely"}; !slices.Equal(g.Columns, want) {
		t.Errorf("columns %q, want %q", g.Columns, want)
	}
	if want := ratios[1:]; !slices.Equal(g.Ratios, want) {
		t.Errorf("ratios %v, want %v", g.Ratios, want)
	}
}

func TestClusterPlanBoundsTheBytesOfARepetition(t *testing.T) {
	p := FullPlan()
	if got := clusterPlan(p, 64).QueueMax; got != p.QueueMax {
		t.Errorf("64 B: QueueMax %d, want the plan's %d", got, p.QueueMax)
	}
	big := clusterPlan(p, 64<<10)
	if big.QueueMax != clusterRepBytes/(64<<10) || big.QueueSize != 64<<10 {
		t.Errorf("64 KiB: QueueMax %d, QueueSize %d, want %d and %d", big.QueueMax, big.QueueSize, clusterRepBytes/(64<<10), 64<<10)
	}
}

func TestWeidaReplicatedConfirmsReplicatedFromTheLeader(t *testing.T) {
	q := weidaReplicated{flushed: true}
	s, err := q.StartQueue(t.Context(), t.TempDir(), 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := s.(*weidaCluster)
	leads := 0
	for _, m := range c.members {
		st, err := m.broker.Stats(t.Context(), clusterQueuePath)
		if err != nil {
			t.Fatal(err)
		}
		if st.Cluster.IsLeader {
			leads++
			if want := m.binding.URL(clusterQueuePath); s.Addr() != want {
				t.Errorf("Addr is %s, the leader is %s", s.Addr(), want)
			}
		}
	}
	if leads != 1 {
		t.Fatalf("%d members lead the queue, want 1", leads)
	}
	// Publish fails unless the confirm certifies Replicated; 64 KiB is
	// past the inline limit, so its body travels on its own.
	p, err := q.DialProducer(t.Context(), s.Addr(), func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, size := range clusterSizes {
		if err := p.Publish(t.Context(), make([]byte, size)); err != nil {
			t.Fatalf("%d B: %v", size, err)
		}
	}
}
