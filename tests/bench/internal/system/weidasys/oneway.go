package weidasys

import (
	"context"

	weida "github.com/weida-go/weida/core"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// sinkServer is a Puller receiving every message whole.
type sinkServer struct {
	*bound
	loops *system.Loops
}

// StartSink implements system.System.
func (System) StartSink(_ context.Context, maxSize int, received func(int, error)) (system.Server, error) {
	b, err := bind()
	if err != nil {
		return nil, err
	}
	pull, err := b.binding.Puller(sinkPath)
	if err != nil {
		b.rt.Shutdown()
		return nil, err
	}
	s := &sinkServer{bound: b, loops: system.NewLoops()}
	s.loops.Go(func(ctx context.Context) {
		// One buffer lent to every receive, as the quic-go sink reads
		// every stream into one.
		buf := make([]byte, 0, maxSize+1)
		for {
			msg, _, err := pull.RecvAppend(ctx, buf, int64(maxSize))
			if ctx.Err() != nil {
				return
			}
			received(len(msg), err)
		}
	})
	return s, nil
}

func (s *sinkServer) Addr() string { return s.binding.URL(sinkPath) }

func (s *sinkServer) Close() error {
	s.loops.Stop(nil)
	s.rt.Shutdown()
	return nil
}

// pusher is one Pusher in its own runtime.
type pusher struct {
	rt *weida.Runtime
	p  *weida.Pusher
}

// DialSource implements system.System.
func (System) DialSource(ctx context.Context, addr string) (system.Sender, error) {
	p, err := dialPusher(ctx, addr)
	if err != nil {
		return nil, err // not p: a nil *pusher would make a non-nil Sender
	}
	return p, nil
}

// dialPusher makes a Pusher in its own runtime and connects it to addr;
// the one-way source and the bulk sender both start this way.
func dialPusher(ctx context.Context, addr string) (*pusher, error) {
	rt, err := clientRuntime()
	if err != nil {
		return nil, err
	}
	p := rt.Pusher(weida.TrustByAddress())
	if err := connectOrShutdown(ctx, rt, p.Connect, addr); err != nil {
		return nil, err
	}
	return &pusher{rt: rt, p: p}, nil
}

func (p *pusher) Send(ctx context.Context, payload []byte) error { return p.p.Send(ctx, payload) }

func (p *pusher) Close() error {
	p.rt.Shutdown()
	return nil
}
