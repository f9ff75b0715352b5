package zmqsys

import (
	"context"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// StartSink implements system.System: a PULL socket, fair-queued over its
// producers.
func (System) StartSink(_ context.Context, maxSize int, received func(int, error)) (system.Server, error) {
	return serve(zmq.Pull, func(_ context.Context, s *zmq.Socket) {
		buf := make([]byte, maxSize+1)
		for {
			n, err := s.Recv(buf, 0)
			if err == zmq.ErrTerminated {
				return
			}
			received(n, err)
		}
	})
}

// sender is a PUSH socket in its own context; a send blocks at the
// high-water mark (1000 messages), ZeroMQ's flow control.
type sender struct{ *node }

// DialSource implements system.System.
func (System) DialSource(ctx context.Context, addr string) (system.Sender, error) {
	n, err := dialNode(ctx, zmq.Push, addr)
	if err != nil {
		return nil, err
	}
	return &sender{n}, nil
}

func (s *sender) Send(_ context.Context, payload []byte) error { return s.sock.Send(payload, 0) }

func (s *sender) Close() error { return s.close() }
