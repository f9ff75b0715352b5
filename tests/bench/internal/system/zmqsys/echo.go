package zmqsys

import (
	"context"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// StartEcho implements system.System: a REP socket sends every request
// back.
func (System) StartEcho(_ context.Context, maxSize int) (system.Server, error) {
	return serve(zmq.Rep, func(_ context.Context, s *zmq.Socket) {
		buf := make([]byte, maxSize+1)
		for {
			n, err := s.Recv(buf, 0)
			if err == zmq.ErrTerminated {
				return
			}
			if err != nil {
				n = 0 // REP must answer before its next receive: an empty reply fails the requester
			}
			if s.Send(buf[:n], 0) == zmq.ErrTerminated {
				return
			}
		}
	})
}

// requester is a REQ socket in its own context.
type requester struct {
	*node
	reply []byte
}

// DialEcho implements system.System.
func (System) DialEcho(ctx context.Context, addr string, maxSize int) (system.Requester, error) {
	n, err := dialNode(ctx, zmq.Req, addr)
	if err != nil {
		return nil, err
	}
	return &requester{node: n, reply: make([]byte, maxSize+1)}, nil
}

func (r *requester) Request(_ context.Context, payload []byte) error {
	if err := r.sock.Send(payload, 0); err != nil {
		return err
	}
	n, err := r.sock.Recv(r.reply, 0)
	if err != nil {
		return err
	}
	if n != len(payload) {
		return wrongLength(n, len(payload))
	}
	return nil
}

func (r *requester) Close() error { return r.close() }
