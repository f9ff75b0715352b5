package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// payloads hands out distinct messages: each carries its sequence number
// in its first 8 bytes, so a content-addressed store cannot deduplicate
// them (identical bodies would measure its dedup path, not its writes) and
// a consumer can tell them apart. One buffer serves them all: Publish is
// done with it on return, and so is PublishAsync (system.Producer), since
// confirms come in any order and a ring of buffers one longer than the
// window would still hand a buffer out again while an early message that
// last used it is in flight.
type payloads struct {
	buf  []byte
	next uint64 // the next message's sequence number
}

func newPayloads(size int) *payloads { return &payloads{buf: make([]byte, size)} }

// take returns the next message and its sequence number.
func (p *payloads) take() ([]byte, uint64) {
	seq := p.next
	p.next++
	binary.LittleEndian.PutUint64(p.buf, seq)
	return p.buf, seq
}

// cpuSince is this process's CPU time since cpu0 per message, in µs:
// broker and producer alike, for stacks that run in the harness process.
func cpuSince(cpu0 time.Duration, messages int) (float64, error) {
	cpu, err := cpuTime()
	if err != nil {
		return 0, err
	}
	return micros(cpu-cpu0) / float64(max(messages, 1)), nil
}

// confirmSequential publishes one message at a time, each waiting for its
// confirm.
type confirmSequential struct {
	producer system.Producer
	payloads *payloads
	plan     Plan
}

func openConfirmSequential(ctx context.Context, q system.QueueSystem, addr string, p Plan) (queueWork, error) {
	prod, err := q.DialProducer(ctx, addr, func(error) {})
	if err != nil {
		return nil, err
	}
	w := &confirmSequential{producer: prod, payloads: newPayloads(p.QueueSize), plan: p}
	for range queueWarmup {
		if err := w.publish(ctx); err != nil {
			_ = prod.Close()
			return nil, fmt.Errorf("warming up: %w", err)
		}
	}
	return w, nil
}

func (w *confirmSequential) rep(ctx context.Context) (measurement, error) {
	samples := make([]time.Duration, 0, w.plan.QueueMax)
	cpu0, err := cpuTime()
	if err != nil {
		return measurement{}, err
	}
	start := time.Now()
	for len(samples) < w.plan.QueueMax && time.Since(start) < w.plan.QueueTime {
		began := time.Now()
		if err := w.publish(ctx); err != nil {
			return measurement{}, err
		}
		samples = append(samples, time.Since(began))
	}
	elapsed := time.Since(start)
	cpu, err := cpuSince(cpu0, len(samples))
	if err != nil {
		return measurement{}, err
	}
	return measurement{samples: samples, figures: map[string]float64{
		"msgs_per_s":     float64(len(samples)) / elapsed.Seconds(),
		"rep_p50_us":     micros(percentile(sortedDurations(samples), 0.5)),
		"cpu_us_per_msg": cpu,
	}}, nil
}

func (w *confirmSequential) publish(ctx context.Context) error {
	payload, seq := w.payloads.take()
	if err := w.producer.Publish(ctx, payload); err != nil {
		return fmt.Errorf("publishing message %d: %w", seq, err)
	}
	return nil
}

func (w *confirmSequential) close() error { return w.producer.Close() }

// confirmWindowed publishes with up to QueueWindow confirms outstanding.
type confirmWindowed struct {
	producer system.Producer
	payloads *payloads
	plan     Plan
	slots    chan struct{} // one token per confirm in flight

	mu  sync.Mutex
	err error // the first failed confirm
}

func openConfirmWindowed(ctx context.Context, q system.QueueSystem, addr string, p Plan) (queueWork, error) {
	w := &confirmWindowed{payloads: newPayloads(p.QueueSize), plan: p, slots: make(chan struct{}, p.QueueWindow)}
	prod, err := q.DialProducer(ctx, addr, w.confirmed)
	if err != nil {
		return nil, err
	}
	w.producer = prod
	for range queueWarmup {
		payload, _ := w.payloads.take()
		if err := prod.Publish(ctx, payload); err != nil {
			_ = prod.Close()
			return nil, fmt.Errorf("warming up: %w", err)
		}
	}
	return w, nil
}

// confirmed is the producer's confirm callback: it frees a slot.
func (w *confirmWindowed) confirmed(err error) {
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	<-w.slots
}

func (w *confirmWindowed) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *confirmWindowed) rep(ctx context.Context) (measurement, error) {
	sent := 0
	cpu0, err := cpuTime()
	if err != nil {
		return measurement{}, err
	}
	start := time.Now()
	for sent < w.plan.QueueMax && time.Since(start) < w.plan.QueueTime {
		select {
		case w.slots <- struct{}{}:
		case <-ctx.Done():
			return measurement{}, fmt.Errorf("waiting for a confirm after %d messages: %w", sent, ctx.Err())
		}
		payload, seq := w.payloads.take()
		if err := w.producer.PublishAsync(ctx, payload); err != nil {
			return measurement{}, fmt.Errorf("publishing message %d: %w", seq, err)
		}
		sent++
	}
	// Every confirm is in once every slot can be taken.
	for range cap(w.slots) {
		select {
		case w.slots <- struct{}{}:
		case <-ctx.Done():
			return measurement{}, fmt.Errorf("waiting for the last confirms: %w", ctx.Err())
		}
	}
	elapsed := time.Since(start)
	cpu, err := cpuSince(cpu0, sent)
	if err != nil {
		return measurement{}, err
	}
	for range cap(w.slots) {
		<-w.slots
	}
	if err := w.failure(); err != nil {
		return measurement{}, fmt.Errorf("a confirm failed: %w", err)
	}
	return measurement{figures: map[string]float64{
		"msgs_per_s":     float64(sent) / elapsed.Seconds(),
		"messages":       float64(sent),
		"cpu_us_per_msg": cpu,
	}}, nil
}

func (w *confirmWindowed) close() error { return w.producer.Close() }

// produceToConsume publishes one message at a time and times it until the
// consumer has it. A late duplicate (a redelivery) is told from the message
// awaited by its sequence number.
type produceToConsume struct {
	producer system.Producer
	consumer interface{ Close() error }
	payloads *payloads
	plan     Plan
	arrived  chan arrival
}

// arrival is a message the consumer took, and when.
type arrival struct {
	seq uint64
	at  time.Time
}

func openProduceToConsume(ctx context.Context, q system.QueueSystem, addr string, p Plan) (queueWork, error) {
	w := &produceToConsume{payloads: newPayloads(p.QueueSize), plan: p, arrived: make(chan arrival, 64)}
	cons, err := q.DialConsumer(ctx, addr, p.QueueSize, w.received)
	if err != nil {
		return nil, err
	}
	w.consumer = cons
	if w.producer, err = q.DialProducer(ctx, addr, func(error) {}); err != nil {
		return nil, errors.Join(err, cons.Close())
	}
	for range queueWarmup {
		if _, err := w.roundTrip(ctx); err != nil {
			return nil, errors.Join(fmt.Errorf("warming up: %w", err), w.close())
		}
	}
	return w, nil
}

// received is the consumer's callback.
func (w *produceToConsume) received(payload []byte) {
	at := time.Now()
	if len(payload) < 8 {
		return // not ours; the awaited message will not come and the case times out
	}
	select {
	case w.arrived <- arrival{seq: binary.LittleEndian.Uint64(payload), at: at}:
	default: // 64 unread duplicates: nobody awaits them
	}
}

// roundTrip publishes the next message with confirm and waits until the
// consumer has it, returning the time from publish to receipt.
func (w *produceToConsume) roundTrip(ctx context.Context) (time.Duration, error) {
	payload, seq := w.payloads.take()
	began := time.Now()
	if err := w.producer.Publish(ctx, payload); err != nil {
		return 0, fmt.Errorf("publishing message %d: %w", seq, err)
	}
	for {
		select {
		case a := <-w.arrived:
			if a.seq == seq {
				return a.at.Sub(began), nil
			}
		case <-ctx.Done():
			return 0, fmt.Errorf("message %d did not reach the consumer: %w", seq, ctx.Err())
		}
	}
}

func (w *produceToConsume) rep(ctx context.Context) (measurement, error) {
	samples := make([]time.Duration, 0, w.plan.QueueLatencyMax)
	start := time.Now()
	for len(samples) < w.plan.QueueLatencyMax && time.Since(start) < w.plan.QueueTime {
		d, err := w.roundTrip(ctx)
		if err != nil {
			return measurement{}, err
		}
		samples = append(samples, d)
	}
	return measurement{samples: samples, figures: map[string]float64{
		"rep_p50_us": micros(percentile(sortedDurations(samples), 0.5)),
	}}, nil
}

func (w *produceToConsume) close() error {
	return errors.Join(w.producer.Close(), w.consumer.Close())
}
