package weidasys

import (
	"context"
	"fmt"
	"io"

	weida "github.com/weida-go/weida/core"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// publisher is a Publisher at pubPath.
type publisher struct {
	*bound
	pub *weida.Publisher
}

// StartPublisher implements system.System.
func (System) StartPublisher(_ context.Context, _ int) (system.Publisher, error) {
	b, err := bind()
	if err != nil {
		return nil, err
	}
	pub, err := b.binding.Publisher(pubPath)
	if err != nil {
		b.rt.Shutdown()
		return nil, err
	}
	return &publisher{bound: b, pub: pub}, nil
}

func (p *publisher) Addr() string { return p.binding.URL(pubPath) }

func (p *publisher) Publish(payload []byte) error {
	_, err := p.pub.Publish(topic, payload)
	return err
}

func (p *publisher) Dropped() uint64 { return p.pub.Dropped() }

func (p *publisher) Close() error {
	p.rt.Shutdown()
	return nil
}

// subscribers are n Subscribers, each in its own runtime with a reader.
type subscribers struct {
	rts   []*weida.Runtime
	loops *system.Loops
}

// DialSubscribers implements system.System.
func (System) DialSubscribers(ctx context.Context, addr string, n, maxSize int, received func(int, []byte)) (io.Closer, error) {
	s := &subscribers{loops: system.NewLoops()}
	for i := range n {
		sub, err := s.dial(ctx, addr)
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
		s.loops.Go(func(ctx context.Context) {
			// One buffer lent to every copy, as each quic-go subscriber
			// reads every copy into one.
			buf := make([]byte, 0, maxSize+1)
			for {
				payload, _, err := sub.RecvAppend(ctx, buf, int64(maxSize))
				if ctx.Err() != nil {
					return
				}
				if err == nil { // a copy lost at the wire is the publisher's drop
					received(i, payload)
				}
			}
		})
	}
	return s, nil
}

func (s *subscribers) dial(ctx context.Context, addr string) (*weida.Subscriber, error) {
	rt, err := clientRuntime()
	if err != nil {
		return nil, err
	}
	sub := rt.Subscriber(weida.TrustByAddress())
	if err := connectOrShutdown(ctx, rt, sub.Connect, addr); err != nil {
		return nil, err
	}
	s.rts = append(s.rts, rt)
	if err := sub.Subscribe(ctx, ""); err != nil {
		return nil, err
	}
	return sub, nil
}

func (s *subscribers) Close() error {
	s.loops.Stop(func() {
		for _, rt := range s.rts {
			rt.Shutdown()
		}
	})
	return nil
}
