package natssys

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartEcho implements system.System: a responder subscription answers
// each request with its own bytes.
func (System) StartEcho(_ context.Context, _ int) (system.Server, error) {
	b, err := startBroker()
	if err != nil {
		return nil, err
	}
	if err := subscribe(b.nc, echoSubject, func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// requester is one client connection.
type requester struct{ client }

// DialEcho implements system.System.
func (System) DialEcho(_ context.Context, addr string, _ int) (system.Requester, error) {
	nc, err := connect(addr)
	if err != nil {
		return nil, err
	}
	return &requester{client{nc}}, nil
}

func (r *requester) Request(ctx context.Context, payload []byte) error {
	m, err := r.nc.RequestWithContext(ctx, echoSubject, payload)
	if err != nil {
		return err
	}
	if len(m.Data) != len(payload) {
		return fmt.Errorf("nats: a reply of %d bytes, want %d", len(m.Data), len(payload))
	}
	return nil
}
