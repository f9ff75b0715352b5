package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// onewayWarmup messages per producer are sent and received untimed.
const onewayWarmup = 100

// onewayWindow bounds the messages sent and not yet received, over all
// producers. It is above what every transport here keeps in flight on its
// own (QUIC's stream limits, ZeroMQ's high-water marks) except core NATS,
// which has no flow control: without it an unpaced NATS producer queues
// without bound.
const onewayWindow = 16384

// onewayGroup measures one-way messages from producers, each on its own
// connection, to one receiver.
func (r *Runner) onewayGroup(ctx context.Context) Group {
	g := Group{ID: "oneway", Title: "One-way messages",
		About: fmt.Sprintf("Producers, each on its own connection, send messages as fast as the system takes them for %v; "+
			"the clock stops when the receiver has read the last one whole. At most %d messages are in flight (sent, not yet received) "+
			"over all producers. Figures are medians over the repetitions; both ends run in the harness process.",
			r.Plan.OneWayTime, onewayWindow),
		Metrics: []Metric{
			{Key: "msgs_per_s", Label: "messages/s", Unit: "msg/s", Headline: true},
			{Key: "mib_per_s", Label: "payload", Unit: "MiB/s"},
		}}
	var specs []caseSpec
	for _, c := range r.Plan.OneWay {
		label := fmt.Sprintf("%s × %d producer", sizeLabel(int64(c.Size)), c.Producers)
		if c.Producers > 1 {
			label += "s"
		}
		specs = append(specs, caseSpec{id: fmt.Sprintf("oneway/%s/%dp", sizeLabel(int64(c.Size)), c.Producers),
			label: label, param: float64(c.Size), arg: c})
	}
	r.runGroup(ctx, &g, specs, r.Plan.Reps, freshPerRep, func(ctx context.Context, s system.System, c caseSpec) (session, error) {
		return openOneWay(ctx, s, c.arg.(OneWayCase), r.Plan.OneWayTime)
	})
	return g
}

// onewaySession is a sink and its connected producers.
type onewaySession struct {
	sink     system.Server
	senders  []system.Sender
	counter  *counter
	payload  []byte
	duration time.Duration
}

func openOneWay(ctx context.Context, s system.System, c OneWayCase, duration time.Duration) (session, error) {
	counter := newCounter(c.Size)
	sink, err := s.StartSink(ctx, c.Size, counter.received)
	if err != nil {
		return nil, err
	}
	sess := &onewaySession{sink: sink, counter: counter, payload: make([]byte, c.Size), duration: duration}
	for range c.Producers {
		snd, err := s.DialSource(ctx, sink.Addr())
		if err != nil {
			_ = sess.close()
			return nil, err
		}
		sess.senders = append(sess.senders, snd)
	}
	for _, snd := range sess.senders {
		for range onewayWarmup {
			if err := snd.Send(ctx, sess.payload); err != nil {
				_ = sess.close()
				return nil, err
			}
		}
	}
	if err := counter.await(ctx, int64(onewayWarmup*c.Producers)); err != nil {
		_ = sess.close()
		return nil, fmt.Errorf("warming up: %w", err)
	}
	return sess, nil
}

// rep lets every producer send until the duration passes, then waits until
// the receiver has everything.
func (s *onewaySession) rep(ctx context.Context, _ int) (measurement, error) {
	base := s.counter.n.Load()
	var sent atomic.Int64
	var stop atomic.Bool
	errs := make([]error, len(s.senders))
	var wg sync.WaitGroup
	start := time.Now()
	for i, snd := range s.senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for sent.Load()-(s.counter.n.Load()-base) >= onewayWindow && !stop.Load() {
					select {
					case <-s.counter.wake:
					case <-time.After(time.Millisecond): // another producer may have taken the wake-up
					}
				}
				if err := snd.Send(ctx, s.payload); err != nil {
					errs[i] = err
					stop.Store(true)
					return
				}
				sent.Add(1)
			}
		}()
	}
	timer := time.AfterFunc(s.duration, func() { stop.Store(true) })
	defer timer.Stop()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return measurement{}, err
	}
	if err := s.counter.await(ctx, base+sent.Load()); err != nil {
		return measurement{}, err
	}
	elapsed := time.Since(start)
	n := float64(sent.Load())
	return measurement{figures: map[string]float64{
		"msgs_per_s": n / elapsed.Seconds(),
		"mib_per_s":  mib(n*float64(len(s.payload))) / elapsed.Seconds(),
		"messages":   n,
	}}, nil
}

func (s *onewaySession) close() error {
	return errors.Join(system.CloseAll(s.senders), s.sink.Close())
}
