package weidasys

import (
	"context"
	"os"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Queue is weida's broker (core/broker) embedded in a server runtime, with
// one queue at one durability: producers publish with an exchange to the
// queue's path and take the confirm on its reply (DATA key 8); consumers
// are Subscribers that grant credit and report Processed for each message.
type Queue struct{ Durability broker.Durability }

// queuePath is the one queue's path.
const queuePath = "/queue"

// queueBytes bounds the queue's held bytes above what a repetition of the
// confirm cases leaves in it (they run without a consumer), so no publish
// is refused for room: 64 B messages are charged 320 B each.
const queueBytes = 256 << 20

// Name implements system.QueueSystem: "weida memory", "weida written",
// "weida flushed".
func (q Queue) Name() string { return "weida " + q.Durability.String() }

// Available implements system.QueueSystem by making such a queue once, on
// a runtime with no binding, in a scratch directory: a durability this
// build cannot honour is refused by broker.New (a broker whose store is
// still being built), and the report says so instead of failing.
func (q Queue) Available() string {
	dir, err := os.MkdirTemp("", "weida-bench-probe-")
	if err != nil {
		return "no scratch directory to try the broker in: " + err.Error()
	}
	defer os.RemoveAll(dir)
	rt, err := clientRuntime()
	if err != nil {
		return "no runtime to try the broker on: " + err.Error()
	}
	defer rt.Shutdown()
	brk, err := broker.New(rt, broker.Config{DataDir: dir, Queues: []broker.QueueConfig{{Path: queuePath, Durability: q.Durability}}})
	if err != nil {
		return err.Error()
	}
	brk.Close()
	return ""
}

// queueServer is a broker serving one queue on a bound runtime.
type queueServer struct {
	*bound
	broker *broker.Broker
	loops  *system.Loops
}

// StartQueue implements system.QueueSystem.
func (q Queue) StartQueue(_ context.Context, dir string, _ int) (system.Server, error) {
	cfg := broker.Config{DataDir: dir, QueueBytes: queueBytes,
		Queues: []broker.QueueConfig{{Path: queuePath, Durability: q.Durability}}}
	// The runtime offers what the queue confirms, as the broker's own does.
	b, err := bindWith(broker.RuntimeConfig(weida.Config{}, cfg))
	if err != nil {
		return nil, err
	}
	brk, err := broker.New(b.rt, cfg)
	if err != nil {
		b.rt.Shutdown()
		return nil, err
	}
	s := &queueServer{bound: b, broker: brk, loops: system.NewLoops()}
	s.loops.Go(func(ctx context.Context) { _ = brk.Serve(ctx) })
	return s, nil
}

func (s *queueServer) Addr() string { return s.binding.URL(queuePath) }

func (s *queueServer) Close() error {
	s.loops.Stop(s.broker.Close)
	s.rt.Shutdown()
	return nil
}
