package quicsys

import (
	"context"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartSink implements system.System: every unidirectional stream is read
// to its FIN as one message.
func (sys System) StartSink(_ context.Context, maxSize int, received func(int, error)) (system.Server, error) {
	if sys.Floor {
		return sys.startFloorSink(maxSize, received)
	}
	return sys.listen(func(ctx context.Context, c *quic.Conn) {
		readEachUni(ctx, c, make([]byte, maxSize+1), func(_ *quic.ReceiveStream, msg []byte, err error) bool {
			received(len(msg), err)
			return true
		})
	})
}

// readEachUni is an accept loop of c's unidirectional streams: each is read
// to its FIN into buf (one that fails is stopped) and handed to each with
// its stream, until ctx ends or each reports false.
func readEachUni(ctx context.Context, c *quic.Conn, buf []byte, each func(s *quic.ReceiveStream, msg []byte, err error) bool) {
	for {
		s, err := c.AcceptUniStream(ctx)
		if err != nil {
			return
		}
		n, err := system.ReadWhole(s, buf)
		if err != nil {
			s.CancelRead(abortCode)
		}
		if !each(s, buf[:n], err) {
			return
		}
	}
}

// sender is one producer's connection; the floor's frames each message in
// frame's room.
type sender struct {
	c     *quic.Conn
	floor bool
	frame []byte
}

// DialSource implements system.System.
func (sys System) DialSource(ctx context.Context, addr string) (system.Sender, error) {
	c, err := sys.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &sender{c: c, floor: sys.Floor}, nil
}

// Send opens a unidirectional stream, writes payload and finishes it.
func (s *sender) Send(ctx context.Context, payload []byte) error {
	st, err := s.c.OpenUniStreamSync(ctx)
	if err != nil {
		return err
	}
	if s.floor {
		s.frame = framed(s.frame, floorSinkPath, "", payload)
		payload = s.frame
	}
	if _, err := st.Write(payload); err != nil {
		return err
	}
	return st.Close()
}

func (s *sender) Close() error { return closeConn(s.c) }
