package harness

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/weida-go/weida/core/broker"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/internal/system/quicsys"
	"github.com/weida-go/weida/tests/bench/internal/system/weidasys"
)

// clusterSizes are the replicated queues' message sizes: a small message,
// where the cost is per message (consensus round trips, fsyncs), and one
// past weida's inline limit (4 KiB), whose body travels on its own.
var clusterSizes = []int{64, 64 << 10}

// clusterRepBytes bounds the bytes one repetition publishes, so a 64 KiB
// repetition stays well inside weida's queue bound (the confirm cases run
// without a consumer) and three copies of it inside the disk: 2048
// messages of 64 KiB.
const clusterRepBytes = 128 << 20

// replicated is a queue stack that keeps every message on more than one
// node; its rows are the replicated-queue group's, not the queue group's.
type replicated interface{ Replicas() int }

func isReplicated(q system.QueueSystem) bool {
	r, ok := q.(replicated)
	return ok && r.Replicas() > 1
}

// ClusterQueues is every replicated queue stack at every storage setting,
// weida's first.
func ClusterQueues() []system.QueueSystem {
	return []system.QueueSystem{weidaReplicated{}, weidaReplicated{flushed: true}, jetStreamR3{}, jetStreamR3{syncAlways: true}}
}

// ClusterRatios pairs each replicated weida queue with JetStream R3 at the
// storage setting that promises the same (Written with file storage at its
// default sync interval, Flushed with sync_always), with the same queue
// on one node (what replication costs) and Written with the wire's
// ceiling on one connection, nothing stored (quic-go exchange).
func ClusterRatios() []Ratio {
	pairs := []struct{ of, over system.QueueSystem }{
		{weidaReplicated{}, jetStreamR3{}},
		{weidaReplicated{flushed: true}, jetStreamR3{syncAlways: true}},
		{weidaReplicated{}, weidasys.Queue{Durability: broker.Written}},
		{weidaReplicated{flushed: true}, weidasys.Queue{Durability: broker.Flushed}},
		{weidaReplicated{}, quicsys.Queue{}},
	}
	out := make([]Ratio, len(pairs))
	for i, p := range pairs {
		out[i] = Ratio{Of: p.of.Name(), Over: p.over.Name()}
	}
	return out
}

// clusterCase is one replicated-queue case: a workload at a message size.
type clusterCase struct {
	workload string
	size     int
}

// clusterGroup measures the replicated queues: publish with confirm, one
// at a time and with a window in flight, at each of clusterSizes, on every
// replicated stack and on the single-node stacks a ratio compares them
// with.
func (r *Runner) clusterGroup(ctx context.Context) Group {
	p := r.Plan
	g := Group{ID: "replicated-queue", Title: "Replicated queues",
		About: fmt.Sprintf("Three nodes in the harness process, on loopback, each storing into its own fresh directory under the "+
			"temporary directory (%s), set up again for every repetition; the stack's figures count from the moment the queue "+
			"has a leader and every replica is current. weida replicated: three brokers, each on its own runtime and Raft socket, "+
			"serving one queue of a cluster file (hashicorp/raft's default timings, as `weida broker --cluster` runs), the "+
			"producer dialled to the queue's leader, each confirm certifying Replicated by a quorum of 2 at the queue's "+
			"durability (Written: each member's OS has it; Flushed: each fsynced it). JetStream R3: three embedded nats-servers routed to each other, one "+
			"work-queue stream with Replicas: 3 in file storage, the producer connected to the stream leader's server (its "+
			"best case: no hop through another server). Its settings face weida's as on one node: JetStream's default (fsync "+
			"every two minutes) against Written, sync_always on every server against Flushed. The single-node columns are the "+
			"queue section's stacks at these sizes (quic-go exchange: the wire's ceiling, one exchange per message with nothing "+
			"stored or replicated). One producer publishes messages of %s, no two alike, and waits for each "+
			"one's confirm: one at a time, and with %d confirms in flight, each repetition up to %d messages (at most %s) or "+
			"%v, the clock stopping at the last confirm. CPU per message is the harness process's user and system time over "+
			"the repetition (all three nodes and the producer: every stack here runs in it) divided by the messages confirmed. "+
			"Rates are medians over the repetitions, latencies percentiles over "+
			"every message of every repetition.",
			filesystemOf(os.TempDir()), sizesLabel(clusterSizes), p.QueueWindow, p.QueueMax, sizeLabel(clusterRepBytes), p.QueueTime),
		Metrics: append(queueMetrics(), Metric{Key: "cpu_us_per_msg", Label: "CPU per message", Unit: "µs",
			LowerIsBetter: true, Headline: true})}
	var stacks, singles []system.QueueSystem
	for _, q := range r.Queues {
		if isReplicated(q) {
			stacks = append(stacks, q)
		}
	}
	for _, q := range r.Queues {
		if !isReplicated(q) && comparedWith(q, stacks, r.QueueRatios) {
			singles = append(singles, q)
		}
	}
	stacks = append(stacks, singles...)
	g.Ratios = ratiosAmong(r.QueueRatios, stacks)
	var columns []column
	for _, q := range stacks {
		g.Columns = append(g.Columns, q.Name())
		columns = append(columns, column{name: q.Name(), skipped: q.Available(),
			open: func(ctx context.Context, c caseSpec) (session, error) {
				cc := c.arg.(clusterCase)
				return openQueue(ctx, q, cc.workload, clusterPlan(p, cc.size))
			}})
	}
	var specs []caseSpec
	for _, size := range clusterSizes {
		label := sizeLabel(int64(size))
		specs = append(specs,
			caseSpec{id: "replicated-queue/" + label + "/" + queueConfirmSequential, label: label + " publish with confirm, one at a time",
				param: float64(size), arg: clusterCase{workload: queueConfirmSequential, size: size}},
			caseSpec{id: "replicated-queue/" + label + "/" + queueConfirmWindowed,
				label: fmt.Sprintf("%s publish with confirm, %d in flight", label, p.QueueWindow),
				param: float64(size), arg: clusterCase{workload: queueConfirmWindowed, size: size}})
	}
	if len(columns) > 0 {
		r.runColumns(ctx, &g, columns, specs, p.Reps, freshPerRep)
	}
	return g
}

// clusterPlan is p for messages of size: at most clusterRepBytes a
// repetition.
func clusterPlan(p Plan, size int) Plan {
	p.QueueSize = size
	p.QueueMax = min(p.QueueMax, clusterRepBytes/size)
	return p
}

// comparedWith says whether a ratio pairs q with one of stacks.
func comparedWith(q system.QueueSystem, stacks []system.QueueSystem, ratios []Ratio) bool {
	for _, s := range stacks {
		for _, r := range ratios {
			if (r.Of == q.Name() && r.Over == s.Name()) || (r.Of == s.Name() && r.Over == q.Name()) {
				return true
			}
		}
	}
	return false
}

// ratiosAmong is the ratios both of whose stacks are among stacks.
func ratiosAmong[S interface{ Name() string }](ratios []Ratio, stacks []S) []Ratio {
	var names []string
	for _, q := range stacks {
		names = append(names, q.Name())
	}
	var out []Ratio
	for _, r := range ratios {
		if slices.Contains(names, r.Of) && slices.Contains(names, r.Over) {
			out = append(out, r)
		}
	}
	return out
}

// sizesLabel names sizes the way the report does: "64B and 64KiB".
func sizesLabel(sizes []int) string {
	var out string
	for i, s := range sizes {
		switch {
		case i == 0:
		case i == len(sizes)-1:
			out += " and "
		default:
			out += ", "
		}
		out += sizeLabel(int64(s))
	}
	return out
}
