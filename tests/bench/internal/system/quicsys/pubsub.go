package quicsys

import (
	"context"
	"fmt"
	"io"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// publisher sends each publication to every accepted connection, one
// unidirectional stream per copy, in the publishing goroutine.
type publisher struct {
	*listener
	floor bool
	frame []byte
}

// StartPublisher implements system.System. A subscriber is whoever
// connects; the server does nothing with a connection but keep it.
func (sys System) StartPublisher(_ context.Context, _ int) (system.Publisher, error) {
	l, err := sys.listen(func(context.Context, *quic.Conn) {})
	if err != nil {
		return nil, err
	}
	return &publisher{listener: l, floor: sys.Floor}, nil
}

func (p *publisher) Publish(payload []byte) error {
	if p.floor {
		p.frame = framed(p.frame, floorPubPath, floorTopic, payload)
		payload = p.frame
	}
	for _, c := range p.accepted() {
		s, err := c.OpenUniStreamSync(c.Context())
		if err != nil {
			return err
		}
		if _, err := s.Write(payload); err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return err
		}
	}
	return nil
}

// Dropped is always 0: a copy is either written or the publish fails.
func (p *publisher) Dropped() uint64 { return 0 }

// subscribers are n client connections, each with a reader.
type subscribers struct {
	conns []*quic.Conn
	loops *system.Loops
}

// DialSubscribers implements system.System.
func (sys System) DialSubscribers(ctx context.Context, addr string, n, maxSize int, received func(int, []byte)) (io.Closer, error) {
	s := &subscribers{loops: system.NewLoops()}
	for i := range n {
		c, err := sys.dial(ctx, addr)
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("subscriber %d: %w", i, err)
		}
		s.conns = append(s.conns, c)
		if sys.Floor {
			floorSubscribe(s.loops, c, maxSize, func(body []byte) { received(i, body) })
			continue
		}
		s.loops.Go(func(ctx context.Context) {
			readEachUni(ctx, c, make([]byte, maxSize+1), func(_ *quic.ReceiveStream, msg []byte, err error) bool {
				if err == nil {
					received(i, msg)
				}
				return true
			})
		})
	}
	return s, nil
}

func (s *subscribers) Close() error {
	s.loops.Stop(func() {
		for _, c := range s.conns {
			_ = closeConn(c)
		}
	})
	return nil
}
