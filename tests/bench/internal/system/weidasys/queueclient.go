package weidasys

import (
	"bytes"
	"context"
	"fmt"
	"io"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// producer is a Requester in its own runtime, publishing to the queue.
type producer struct {
	rt        *weida.Runtime
	r         *weida.Requester
	confirmed func(error)
	want      uint64 // the level a confirm must certify
}

// DialProducer implements system.QueueSystem.
func (q Queue) DialProducer(ctx context.Context, addr string, confirmed func(error)) (system.Producer, error) {
	rt, err := clientRuntime()
	if err != nil {
		return nil, err
	}
	r := rt.Requester(weida.TrustByAddress())
	if err := connectOrShutdown(ctx, rt, r.Connect, addr); err != nil {
		return nil, err
	}
	want := uint64(weida.Stored)
	if q.Durability == broker.Memory {
		want = weida.Accepted
	}
	return &producer{rt: rt, r: r, confirmed: confirmed, want: want}, nil
}

// Publish runs one exchange: the queue's reply carries no payload, its
// header the certificate.
func (p *producer) Publish(ctx context.Context, payload []byte) error {
	_, meta, err := p.r.RequestWith(ctx, weida.TransferMeta{}, payload, 0)
	if err != nil {
		return err
	}
	if level, ok := meta.Achieved(); !ok || level != p.want {
		return fmt.Errorf("weida: the queue confirmed level %d (present: %v), want %d", level, ok, p.want)
	}
	return nil
}

// PublishAsync runs the exchange on a goroutine of its own: exchanges may
// run concurrently, each on its own stream. The goroutine sends a copy:
// the caller's buffer is its own again on return.
func (p *producer) PublishAsync(ctx context.Context, payload []byte) error {
	payload = bytes.Clone(payload)
	go func() { p.confirmed(p.Publish(ctx, payload)) }()
	return nil
}

func (p *producer) Close() error {
	p.rt.Shutdown()
	return nil
}

// creditWindow is how many messages a consumer grants beyond what it
// received; it grants again each time half of that was used, as a consumer
// that bounds its intake would.
const creditWindow = 1024

// consumer is a Subscriber in its own runtime on the queue's path.
type consumer struct {
	rt    *weida.Runtime
	loops *system.Loops
}

// DialConsumer implements system.QueueSystem.
func (Queue) DialConsumer(ctx context.Context, addr string, maxSize int, received func([]byte)) (io.Closer, error) {
	rt, err := clientRuntime()
	if err != nil {
		return nil, err
	}
	sub := rt.Subscriber(weida.TrustByAddress())
	if err := connectOrShutdown(ctx, rt, sub.Connect, addr); err != nil {
		return nil, err
	}
	c := &consumer{rt: rt, loops: system.NewLoops()}
	if err := sub.Subscribe(ctx, ""); err != nil {
		_ = c.Close()
		return nil, err
	}
	if err := sub.Grant(ctx, creditWindow); err != nil {
		_ = c.Close()
		return nil, err
	}
	c.loops.Go(func(ctx context.Context) {
		for n := uint64(1); ; n++ {
			payload, _, rep, err := sub.RecvReporting(ctx, int64(maxSize))
			if err != nil {
				// Closed, or a delivery it could not take (the queue takes
				// that back): either way the awaited messages stop coming,
				// and the harness says which ones when its wait ends.
				return
			}
			received(payload)
			if rep != nil {
				_ = rep.Report(weida.Processed, uint64(len(payload))) // settles the message
				_ = rep.Finish()
			}
			if n%(creditWindow/2) == 0 {
				_ = sub.Grant(ctx, n+creditWindow) // a lost grant is repeated by the next one
			}
		}
	})
	return c, nil
}

func (c *consumer) Close() error {
	c.loops.Stop(c.rt.Shutdown)
	return nil
}
