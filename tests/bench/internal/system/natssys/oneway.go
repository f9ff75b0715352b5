package natssys

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartSink implements system.System: one subscription receives every
// message published to the sink subject.
func (System) StartSink(_ context.Context, maxSize int, received func(int, error)) (system.Server, error) {
	b, err := startBroker()
	if err != nil {
		return nil, err
	}
	err = subscribe(b.nc, sinkSubject, func(m *nats.Msg) {
		if len(m.Data) > maxSize {
			received(len(m.Data), fmt.Errorf("nats: a message of %d bytes, above %d", len(m.Data), maxSize))
			return
		}
		received(len(m.Data), nil)
	})
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// sender is one producer's connection.
type sender struct{ client }

// DialSource implements system.System.
func (System) DialSource(_ context.Context, addr string) (system.Sender, error) {
	nc, err := connect(addr)
	if err != nil {
		return nil, err
	}
	return &sender{client{nc}}, nil
}

func (s *sender) Send(_ context.Context, payload []byte) error {
	return s.nc.Publish(sinkSubject, payload)
}
