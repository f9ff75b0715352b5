package harness

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// fanoutWarmupEvery is the warm-up publication interval.
const fanoutWarmupEvery = 10 * time.Millisecond

// fanoutPublisherChild is the child side of the fan-out workload. Commands:
// "warm" publishes warm-up payloads until "warmed" or "go <n> <lag>";
// "go" publishes n measured payloads, each only while fewer than lag are
// unacknowledged ("ack <slowest>" lines, read concurrently); then
// "dropped <n>" reports follow until "end", answered with the CPU time
// since "go".
func fanoutPublisherChild(ctx context.Context, sys system.System, size int, io *childIO) error {
	pub, err := sys.StartPublisher(ctx, size)
	if err != nil {
		return err
	}
	defer pub.Close()
	io.say("ready %s", pub.Addr())

	var acked atomic.Int64
	wake := make(chan struct{}, 1)
	commands := make(chan []string)
	go func() {
		defer close(commands)
		for {
			words, ok := io.next()
			if !ok {
				return
			}
			switch words[0] {
			case "ack":
				if len(words) == 2 {
					n, _ := strconv.ParseInt(words[1], 10, 64)
					acked.Store(n)
					select {
					case wake <- struct{}{}:
					default:
					}
				}
				continue
			case "go":
				acked.Store(0) // here, not in the publishing loop: this rep's acks follow at once
			}
			commands <- words
		}
	}()

	p := &fanoutPublishing{pub: pub, size: size, acked: &acked, wake: wake, io: io}
	for words := range commands {
		var err error
		switch words[0] {
		case "warm":
			p.startWarmup()
		case "warmed": // every subscriber had a warm-up copy
			p.stopBackground()
		case "go":
			err = p.publish(words)
		case "end":
			err = p.end()
		case "quit":
			p.stopBackground()
			return nil
		default:
			err = fmt.Errorf("unknown command %q", words[0])
		}
		if err != nil {
			p.stopBackground()
			return err
		}
	}
	p.stopBackground()
	return nil
}

// fanoutPublishing is the child's state between commands.
type fanoutPublishing struct {
	pub   system.Publisher
	size  int
	acked *atomic.Int64
	wake  chan struct{}
	io    *childIO

	background func() // stops the warm-up or the drop reporter
	cpuStart   time.Duration
	dropStart  uint64
	publishing time.Duration
	published  int
}

// startWarmup publishes warm-up payloads until stopped.
func (p *fanoutPublishing) startWarmup() {
	payload := make([]byte, p.size)
	payload[0] = markWarmup
	p.runBackground(fanoutWarmupEvery, func() { _ = p.pub.Publish(payload) })
}

// publish handles "go <n> <lag>".
func (p *fanoutPublishing) publish(words []string) error {
	if len(words) != 3 {
		return fmt.Errorf("go wants <n> <lag>, got %q", words)
	}
	n, err1 := strconv.Atoi(words[1])
	lag, err2 := strconv.ParseInt(words[2], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("go wants two numbers, got %q", words)
	}
	p.stopBackground()
	payload := make([]byte, p.size)
	payload[0] = markMeasured
	var err error
	if p.cpuStart, err = cpuTime(); err != nil {
		return err
	}
	p.dropStart, p.publishing, p.published = p.pub.Dropped(), 0, n
	for i := range n {
		// Drops count as progress, or a dropped copy would stall the pacing.
		for int64(i) >= p.acked.Load()+int64(p.pub.Dropped()-p.dropStart)+lag {
			select {
			case <-p.wake:
			case <-time.After(10 * time.Millisecond): // drops change without a wake-up
			}
		}
		began := time.Now()
		if err := p.pub.Publish(payload); err != nil {
			return fmt.Errorf("publication %d: %w", i, err)
		}
		p.publishing += time.Since(began)
	}
	report := func() { p.io.say("dropped %d", p.pub.Dropped()-p.dropStart) }
	report()
	p.runBackground(20*time.Millisecond, report)
	return nil
}

// end handles "end": the figures since "go".
func (p *fanoutPublishing) end() error {
	p.stopBackground()
	cpu, err := cpuTime()
	if err != nil {
		return err
	}
	return p.io.result(fanoutChildResult{CPUNanos: int64(cpu - p.cpuStart), PublishNanos: int64(p.publishing),
		Dropped: int64(p.pub.Dropped() - p.dropStart), Publications: int64(p.published)})
}

// runBackground runs fn every interval until stopBackground.
func (p *fanoutPublishing) runBackground(interval time.Duration, fn func()) {
	p.stopBackground()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			fn()
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	p.background = func() {
		close(stop)
		<-stopped
	}
}

func (p *fanoutPublishing) stopBackground() {
	if p.background != nil {
		p.background()
		p.background = nil
	}
}
