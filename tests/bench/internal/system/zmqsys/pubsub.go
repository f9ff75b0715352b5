package zmqsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// publisher is a bound PUB socket. PUB never blocks: at a subscriber's
// high-water mark it drops that subscriber's copy, and cannot say so.
//
// The fan-out runs with unlimited high-water marks on both sides. At the
// default of 1000 messages libzmq drops copies even with only 128 in
// flight: a PUB socket learns what its connection drained only every 500
// messages (the low-water mark), and only when it processes commands,
// which a busy sender does at most about once a millisecond; its stale
// view then reads as a full queue. The harness paces the publisher, so
// nothing grows without bound.
type publisher struct {
	*node
	addr string
}

// StartPublisher implements system.System.
func (System) StartPublisher(_ context.Context, _ int) (system.Publisher, error) {
	n, addr, err := bindNode(zmq.Pub, unlimited)
	if err != nil {
		return nil, err
	}
	return &publisher{node: n, addr: addr}, nil
}

func (p *publisher) Addr() string                 { return p.addr }
func (p *publisher) Publish(payload []byte) error { return p.sock.Send(payload, 0) }
func (p *publisher) Dropped() uint64              { return 0 }
func (p *publisher) Close() error                 { return p.close() }

// unlimited lifts a socket's high-water marks (see publisher).
func unlimited(s *zmq.Socket) error { return s.SetHighWaterMarks(0, 0) }

// subscribers are n SUB sockets in one context, read by one goroutine.
type subscribers struct {
	ctx     *zmq.Context
	sockets []*zmq.Socket
	loops   *system.Loops
}

// pollWait bounds each poll so the reader notices Close promptly.
const pollWait = 100 * time.Millisecond

// DialSubscribers implements system.System.
func (System) DialSubscribers(_ context.Context, addr string, n, maxSize int, received func(int, []byte)) (io.Closer, error) {
	ctx, err := zmq.NewContext()
	if err != nil {
		return nil, err
	}
	s := &subscribers{ctx: ctx, loops: system.NewLoops()}
	for i := range n {
		if err := s.dial(addr); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
	}
	s.loops.Go(func(context.Context) { s.read(maxSize, received) })
	return s, nil
}

func (s *subscribers) dial(addr string) error {
	sock, err := s.ctx.Socket(zmq.Sub)
	if err != nil {
		return err
	}
	s.sockets = append(s.sockets, sock)
	if err := unlimited(sock); err != nil {
		return err
	}
	if err := sock.Subscribe(""); err != nil {
		return err
	}
	return sock.Connect(addr)
}

// read polls every socket and drains the ready ones until the context is
// shut down.
func (s *subscribers) read(maxSize int, received func(int, []byte)) {
	poller := zmq.NewPoller(s.sockets)
	buf := make([]byte, maxSize+1)
	var ready []int
	for {
		var err error
		if ready, err = poller.Wait(pollWait, ready); err != nil {
			return // terminated
		}
		for _, i := range ready {
			for {
				n, err := s.sockets[i].Recv(buf, zmq.DontWait)
				if errors.Is(err, zmq.ErrAgain) || errors.Is(err, zmq.ErrTerminated) {
					break
				}
				if err == nil {
					received(i, buf[:n])
				}
			}
		}
	}
}

func (s *subscribers) Close() error {
	s.loops.Stop(s.ctx.Shutdown)
	err := system.CloseAll(s.sockets)
	return errors.Join(err, s.ctx.Term())
}
