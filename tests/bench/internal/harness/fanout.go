package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Payload markers: the first byte of a publication says whether it counts.
const (
	markWarmup   = 0
	markMeasured = 1
)

// fanoutStall is how long delivery may make no progress before a
// repetition is given up as lossy.
const fanoutStall = 5 * time.Second

// fanoutGroup measures one publisher fanning 1 KiB publications out to
// subscribers, each on its own connection. The publishing side runs in a
// child process so its CPU time is its own.
func (r *Runner) fanoutGroup(ctx context.Context) Group {
	size := sizeLabel(int64(r.Plan.FanOutSize))
	g := Group{ID: "fanout", Title: "Pub/Sub " + size + " fan-out",
		About: fmt.Sprintf("A publisher in a child process (for NATS: the embedded server and the publishing client) sends %s payloads; "+
			"the subscribers, each on its own connection, run in the harness. Each repetition publishes max(%d, %d / subscribers) payloads, "+
			"paced so the slowest subscriber is at most %d publications behind (delivery in steady state, not the drop path); "+
			"the clock stops when every copy arrived. Publisher CPU is the child's user+system time from the first publication to the "+
			"last delivered copy, divided by the copies delivered. Figures are medians over the repetitions: each system is set up once, "+
			"all side by side, and the systems take turns within each repetition.",
			size, r.Plan.FanOutMinPublications, r.Plan.FanOutCopies, r.Plan.FanOutLag),
		Metrics: []Metric{
			{Key: "copies_per_s", Label: "delivered copies/s", Unit: "copies/s", Headline: true},
			{Key: "cpu_us_per_copy", Label: "publisher CPU per copy", Unit: "µs", LowerIsBetter: true, Headline: true},
			{Key: "publish_us", Label: "time in Publish", Unit: "µs", LowerIsBetter: true},
			{Key: "dropped", Label: "dropped copies", Unit: "", LowerIsBetter: true},
		}}
	var specs []caseSpec
	for _, n := range r.Plan.FanOutSubscribers {
		label := fmt.Sprintf("%d subscriber", n)
		if n > 1 {
			label += "s"
		}
		specs = append(specs, caseSpec{id: fmt.Sprintf("fanout/%s/%d", size, n), label: label, param: float64(n)})
	}
	r.runGroup(ctx, &g, specs, r.Plan.Reps, oneSetup, func(ctx context.Context, s system.System, c caseSpec) (session, error) {
		return r.openFanOut(ctx, s, c)
	})
	return g
}

// fanoutSession is a publisher child and the subscribers in this process.
type fanoutSession struct {
	child       *child
	subs        io.Closer
	subscribers int
	size        int
	plan        Plan

	counts   []atomic.Int64 // measured copies per subscriber, this repetition
	warmed   []atomic.Bool
	unwarmed atomic.Int64  // subscribers without a warm-up copy yet
	bad      atomic.Int64  // copies of the wrong size
	dropped  atomic.Int64  // the publisher's drops this repetition, as it reports them
	wake     chan struct{} // signalled (lossily) on every copy and report
}

func (r *Runner) openFanOut(ctx context.Context, s system.System, c caseSpec) (session, error) {
	n := int(c.param)
	sess := &fanoutSession{subscribers: n, size: r.Plan.FanOutSize, plan: r.Plan,
		counts: make([]atomic.Int64, n), warmed: make([]atomic.Bool, n), wake: make(chan struct{}, 1)}
	sess.unwarmed.Store(int64(n))
	args := []string{"fanout-publisher", "-system", s.Name(), "-size", strconv.Itoa(sess.size)}
	args = append(args, r.childProfileArgs(c.id, s.Name())...)
	child, err := startChild(r.Child(args...), sess.onLine)
	if err != nil {
		return nil, err
	}
	sess.child = child
	addr, err := child.expect(ctx, "ready")
	if err != nil {
		_ = child.finish(ctx)
		return nil, err
	}
	if sess.subs, err = s.DialSubscribers(ctx, addr, n, sess.size, sess.received); err != nil {
		_ = child.finish(ctx)
		return nil, err
	}
	// Subscriptions take effect some time after they are made (ZeroMQ's
	// "slow joiner"): warm-up publications run until each subscriber has one.
	if err := child.send("warm"); err != nil {
		_ = sess.close()
		return nil, err
	}
	for sess.unwarmed.Load() > 0 {
		select {
		case <-sess.wake:
		case <-ctx.Done():
			_ = sess.close()
			return nil, fmt.Errorf("%d of %d subscribers got no warm-up publication: %w", sess.unwarmed.Load(), n, ctx.Err())
		}
	}
	// The set-up then idles beside the other systems' until its turn.
	if err := child.send("warmed"); err != nil {
		_ = sess.close()
		return nil, err
	}
	return sess, nil
}

// received is the subscribers' callback.
func (s *fanoutSession) received(i int, payload []byte) {
	switch {
	case len(payload) != s.size:
		s.bad.Add(1)
	case payload[0] == markMeasured:
		s.counts[i].Add(1)
	case !s.warmed[i].Swap(true):
		s.unwarmed.Add(-1)
	}
	s.signal()
}

// onLine takes the child's "dropped <n>" reports.
func (s *fanoutSession) onLine(line string) bool {
	rest, ok := strings.CutPrefix(line, "dropped ")
	if !ok {
		return false
	}
	if n, err := strconv.ParseInt(rest, 10, 64); err == nil {
		s.dropped.Store(n)
		s.signal()
	}
	return true
}

func (s *fanoutSession) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// fanoutChildResult is what the publishing child reports for a repetition.
type fanoutChildResult struct {
	CPUNanos     int64 `json:"cpu_ns"`
	PublishNanos int64 `json:"publish_ns"`
	Dropped      int64 `json:"dropped"`
	Publications int64 `json:"publications"`
}

// rep publishes and paces: the child may run lag publications ahead of the
// slowest subscriber, which this side reports back as "ack <count>".
func (s *fanoutSession) rep(ctx context.Context, _ int) (measurement, error) {
	for i := range s.counts {
		s.counts[i].Store(0)
	}
	s.dropped.Store(0)
	pubs := max(s.plan.FanOutMinPublications, s.plan.FanOutCopies/s.subscribers)
	target := int64(pubs * s.subscribers)
	step := int64(max(1, s.plan.FanOutLag/4))
	start := time.Now()
	if err := s.child.send("go %d %d", pubs, s.plan.FanOutLag); err != nil {
		return measurement{}, err
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var acked, total int64
	lastProgress, lastTotal := start, int64(-1)
	for {
		slowest := s.slowest()
		if slowest-acked >= step || (slowest > acked && slowest >= int64(pubs)) {
			if err := s.child.send("ack %d", slowest); err != nil {
				return measurement{}, err
			}
			acked = slowest
		}
		if total = s.total(); total+s.dropped.Load() >= target {
			break
		}
		if total != lastTotal {
			lastTotal, lastProgress = total, time.Now()
		} else if time.Since(lastProgress) > fanoutStall {
			return measurement{}, fmt.Errorf("delivery stalled: %d of %d copies arrived, %d reported dropped (acked %d)%s", total, target, s.dropped.Load(), acked, s.child.tail())
		}
		select {
		case <-s.wake:
		case <-tick.C:
		case <-ctx.Done():
			return measurement{}, fmt.Errorf("%d of %d copies arrived: %w", total, target, ctx.Err())
		}
	}
	elapsed := time.Since(start)
	if err := s.child.send("end"); err != nil {
		return measurement{}, err
	}
	var res fanoutChildResult
	if err := s.child.expectResult(ctx, &res); err != nil {
		return measurement{}, err
	}
	if bad := s.bad.Load(); bad > 0 {
		return measurement{}, fmt.Errorf("%d copies arrived with the wrong size", bad)
	}
	return measurement{figures: map[string]float64{
		"copies_per_s":    float64(total) / elapsed.Seconds(),
		"cpu_us_per_copy": float64(res.CPUNanos) / 1e3 / float64(max(total, 1)),
		"publish_us":      float64(res.PublishNanos) / 1e3 / float64(max(res.Publications, 1)),
		"dropped":         float64(res.Dropped),
		"copies":          float64(total),
	}}, nil
}

func (s *fanoutSession) slowest() int64 {
	low := s.counts[0].Load()
	for i := 1; i < len(s.counts); i++ {
		low = min(low, s.counts[i].Load())
	}
	return low
}

func (s *fanoutSession) total() int64 {
	var n int64
	for i := range s.counts {
		n += s.counts[i].Load()
	}
	return n
}

func (s *fanoutSession) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	if s.subs != nil {
		err = s.subs.Close()
	}
	return errors.Join(err, s.child.finish(ctx))
}
