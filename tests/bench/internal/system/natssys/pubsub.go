package natssys

import (
	"context"
	"fmt"
	"io"

	"github.com/nats-io/nats.go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// publisher is the broker and a publishing connection.
type publisher struct{ *broker }

// StartPublisher implements system.System.
func (System) StartPublisher(_ context.Context, _ int) (system.Publisher, error) {
	b, err := startBroker()
	if err != nil {
		return nil, err
	}
	return &publisher{b}, nil
}

func (p *publisher) Publish(payload []byte) error { return p.nc.Publish(fanSubject, payload) }

// Dropped is 0: the server counts slow-consumer drops, the publisher
// cannot see them (an undelivered copy shows as a shortfall instead).
func (p *publisher) Dropped() uint64 { return 0 }

// subscribers are n client connections, each subscribed to the subject.
type subscribers struct{ conns []*nats.Conn }

// DialSubscribers implements system.System.
func (System) DialSubscribers(_ context.Context, addr string, n, _ int, received func(int, []byte)) (io.Closer, error) {
	s := &subscribers{}
	for i := range n {
		nc, err := connect(addr)
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
		s.conns = append(s.conns, nc)
		if err := subscribe(nc, fanSubject, func(m *nats.Msg) { received(i, m.Data) }); err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
	}
	return s, nil
}

func (s *subscribers) Close() error {
	for _, nc := range s.conns {
		nc.Close()
	}
	return nil
}
