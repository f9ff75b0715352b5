package harness

import (
	"context"
	"fmt"
	"os"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// queueWarmup publishes (or round trips) run untimed after connecting.
const queueWarmup = 10

// The queue cases.
const (
	queueConfirmSequential = "confirm-1"
	queueConfirmWindowed   = "confirm-window"
	queueProduceToConsume  = "produce-to-consume"
)

// queueGroup measures a persistent queue: publish with confirm, one at a
// time and with a window in flight, and produce-to-consume latency.
func (r *Runner) queueGroup(ctx context.Context) Group {
	p := r.Plan
	g := Group{ID: "queue", Title: "Persistent queue",
		About: fmt.Sprintf("One queue on a broker in the harness process, storing into a fresh directory under the temporary "+
			"directory (%s), set up again for every repetition. One producer on its own connection publishes %s messages, no two "+
			"alike (each carries its sequence number: weida's store is content-addressed and would otherwise deduplicate them), and "+
			"waits for each one's confirm (weida: an exchange to the queue path answered at the queue's durability; JetStream: "+
			"the stream's PubAck): one at a time, and with %d confirms in flight (weida: that many concurrent exchanges; "+
			"JetStream: PublishAsync), each repetition up to %d messages or %v, the clock stopping at the last confirm. "+
			"Produce-to-consume: one message in flight, timed from the publish call to the one consumer's receipt (the consumer "+
			"acknowledges each message: weida reports Processed, JetStream acks), up to %d per repetition. Storage settings "+
			"face each other in the ratios: weida Written (the OS has every write, no fsync) against JetStream file (fsync "+
			"every two minutes, its default), weida Flushed (fsync before the confirm) against JetStream with sync_always. "+
			"quic-go exchange is the wire's ceiling, nothing stored: weida's producer gives every message its own QUIC stream and "+
			"takes the confirm on it, and this column is raw quic-go doing just that (each bidirectional stream read to its FIN "+
			"and answered with an 8-byte confirm and FIN, the producer's exchanges as weida's, one goroutine each) with weida's "+
			"quic.Config; no queue on that wire confirms faster here. It has no consumer, so no produce-to-consume figures. "+
			"Rates are medians over the repetitions, latencies percentiles over every message of every repetition.",
			filesystemOf(os.TempDir()), sizeLabel(int64(p.QueueSize)), p.QueueWindow, p.QueueMax, p.QueueTime, p.QueueLatencyMax),
		Metrics: queueMetrics()}
	var stacks []system.QueueSystem // the replicated ones have a group of their own
	for _, q := range r.Queues {
		if !isReplicated(q) {
			stacks = append(stacks, q)
		}
	}
	g.Ratios = ratiosAmong(r.QueueRatios, stacks)
	var columns []column
	for _, q := range stacks {
		g.Columns = append(g.Columns, q.Name())
		columns = append(columns, column{name: q.Name(), skipped: q.Available(), skips: consumerSkips(q),
			open: func(ctx context.Context, c caseSpec) (session, error) { return openQueue(ctx, q, c.arg.(string), p) }})
	}
	size := sizeLabel(int64(p.QueueSize))
	specs := []caseSpec{
		{id: "queue/" + queueConfirmSequential, label: size + " publish with confirm, one at a time", param: 1, arg: queueConfirmSequential},
		{id: "queue/" + queueConfirmWindowed, label: fmt.Sprintf("%s publish with confirm, %d in flight", size, p.QueueWindow),
			param: float64(p.QueueWindow), arg: queueConfirmWindowed},
		{id: "queue/" + queueProduceToConsume, label: size + " produce to consume, one in flight", param: 1, arg: queueProduceToConsume},
	}
	if len(columns) > 0 {
		r.runColumns(ctx, &g, columns, specs, p.Reps, freshPerRep)
	}
	return g
}

// consumerSkips skips the produce-to-consume case, with the stack's
// reason, on a stack that has no consumer.
func consumerSkips(q system.QueueSystem) func(caseSpec) string {
	why := system.ConsumerMissing(q)
	return func(c caseSpec) string {
		if c.arg == queueProduceToConsume {
			return why
		}
		return ""
	}
}

// queueMetrics are the figures of the queue groups' cases.
func queueMetrics() []Metric {
	return []Metric{
		{Key: "msgs_per_s", Label: "messages/s", Unit: "msg/s", Headline: true},
		{Key: "p50_us", Label: "median", Unit: "µs", LowerIsBetter: true, Headline: true},
		{Key: "p99_us", Label: "p99", Unit: "µs", LowerIsBetter: true, Headline: true},
		{Key: "samples", Label: "messages timed", Count: true},
	}
}

// queueSession is a queue with its storage directory, and one of the
// three workloads on it.
type queueSession struct {
	dir    string
	broker system.Server
	work   queueWork
}

// queueWork is one queue workload, connected and warmed up.
type queueWork interface {
	rep(ctx context.Context) (measurement, error)
	close() error
}

func openQueue(ctx context.Context, q system.QueueSystem, workload string, p Plan) (session, error) {
	if p.QueueSize < 8 {
		return nil, fmt.Errorf("queue messages carry an 8-byte sequence number: QueueSize %d is too small", p.QueueSize)
	}
	dir, err := os.MkdirTemp("", "weida-bench-queue-")
	if err != nil {
		return nil, err
	}
	s := &queueSession{dir: dir}
	if s.broker, err = q.StartQueue(ctx, dir, p.QueueSize); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	switch workload {
	case queueConfirmSequential:
		s.work, err = openConfirmSequential(ctx, q, s.broker.Addr(), p)
	case queueConfirmWindowed:
		s.work, err = openConfirmWindowed(ctx, q, s.broker.Addr(), p)
	default:
		s.work, err = openProduceToConsume(ctx, q, s.broker.Addr(), p)
	}
	if err != nil {
		_ = s.close()
		return nil, err
	}
	return s, nil
}

func (s *queueSession) rep(ctx context.Context, _ int) (measurement, error) { return s.work.rep(ctx) }

func (s *queueSession) close() error {
	var err error
	if s.work != nil {
		err = s.work.close()
	}
	if cerr := s.broker.Close(); err == nil {
		err = cerr
	}
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}
