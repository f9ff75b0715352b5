package weidasys

import (
	"context"

	weida "github.com/weida-go/weida/core"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// echoServer answers every request with its own payload.
type echoServer struct {
	*bound
	loops *system.Loops
}

// StartEcho implements system.System: a Replier that Accepts each request
// whole and Replies with it.
func (System) StartEcho(_ context.Context, maxSize int) (system.Server, error) {
	b, err := bind()
	if err != nil {
		return nil, err
	}
	rep, err := b.binding.Replier(echoPath)
	if err != nil {
		b.rt.Shutdown()
		return nil, err
	}
	s := &echoServer{bound: b, loops: system.NewLoops()}
	s.loops.Go(func(ctx context.Context) {
		// One buffer lent to every request, as the quic-go echo reads every
		// request into one; Reply returns once its bytes left it.
		buf := make([]byte, 0, maxSize+1)
		for {
			req, err := rep.AcceptAppend(ctx, buf, int64(maxSize))
			if err != nil {
				return // the replier was closed
			}
			_ = req.Reply(ctx, req.Payload()) // a failed reply fails its requester
		}
	})
	return s, nil
}

func (s *echoServer) Addr() string { return s.binding.URL(echoPath) }

func (s *echoServer) Close() error {
	s.loops.Stop(nil)
	s.rt.Shutdown()
	return nil
}

// requester is one Requester in its own runtime. Every reply is read into
// reply, as the quic-go requester reads every reply into one buffer.
type requester struct {
	rt      *weida.Runtime
	r       *weida.Requester
	maxSize int64
	reply   []byte
}

// DialEcho implements system.System.
func (System) DialEcho(ctx context.Context, addr string, maxSize int) (system.Requester, error) {
	rt, err := clientRuntime()
	if err != nil {
		return nil, err
	}
	r := rt.Requester(weida.TrustByAddress())
	if err := connectOrShutdown(ctx, rt, r.Connect, addr); err != nil {
		return nil, err
	}
	return &requester{rt: rt, r: r, maxSize: int64(maxSize), reply: make([]byte, 0, maxSize+1)}, nil
}

func (q *requester) Request(ctx context.Context, payload []byte) error {
	reply, err := q.r.RequestAppend(ctx, q.reply, payload, q.maxSize)
	if err != nil {
		return err
	}
	return expectLen(len(reply), len(payload))
}

func (q *requester) Close() error {
	q.rt.Shutdown()
	return nil
}
