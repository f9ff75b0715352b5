package quicsys

import (
	"context"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartSink implements system.System: every unidirectional stream is read
// to its FIN as one message.
func (sys System) StartSink(_ context.Context, maxSize int, received func(int, error)) (system.Server, error) {
	return sys.listen(func(ctx context.Context, c *quic.Conn) {
		buf := make([]byte, maxSize+1)
		for {
			s, err := c.AcceptUniStream(ctx)
			if err != nil {
				return
			}
			n, err := system.ReadWhole(s, buf)
			if err != nil {
				s.CancelRead(abortCode)
			}
			received(n, err)
		}
	})
}

// sender is one producer's connection.
type sender struct{ c *quic.Conn }

// DialSource implements system.System.
func (sys System) DialSource(ctx context.Context, addr string) (system.Sender, error) {
	c, err := sys.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &sender{c: c}, nil
}

// Send opens a unidirectional stream, writes payload and finishes it.
func (s *sender) Send(ctx context.Context, payload []byte) error {
	st, err := s.c.OpenUniStreamSync(ctx)
	if err != nil {
		return err
	}
	if _, err := st.Write(payload); err != nil {
		return err
	}
	return st.Close()
}

func (s *sender) Close() error { return closeConn(s.c) }
