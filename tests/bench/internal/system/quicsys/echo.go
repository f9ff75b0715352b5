package quicsys

import (
	"context"
	"fmt"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartEcho implements system.System: every bidirectional stream is read
// to its FIN, answered with its bytes and finished.
func (sys System) StartEcho(_ context.Context, maxSize int) (system.Server, error) {
	if sys.Floor {
		return sys.startFloorEcho(maxSize)
	}
	return sys.listen(func(ctx context.Context, c *quic.Conn) {
		serveExchanges(ctx, c, maxSize, func(request []byte) []byte { return request })
	})
}

// serveExchanges answers c's bidirectional streams one after another, in
// its accept loop: each is read to its FIN (at most maxSize bytes),
// answered with reply's bytes for it and finished.
func serveExchanges(ctx context.Context, c *quic.Conn, maxSize int, reply func(request []byte) []byte) {
	buf := make([]byte, maxSize+1)
	for {
		s, err := c.AcceptStream(ctx)
		if err != nil {
			return
		}
		n, err := system.ReadWhole(s, buf)
		if err == nil {
			_, err = s.Write(reply(buf[:n]))
		}
		if err != nil {
			s.CancelRead(abortCode)
			s.CancelWrite(abortCode)
			continue
		}
		_ = s.Close()
	}
}

// requester is one client connection; the floor's frames each request in
// frame's room and reads past the reply's header.
type requester struct {
	c     *quic.Conn
	reply []byte
	floor bool
	frame []byte
}

// DialEcho implements system.System.
func (sys System) DialEcho(ctx context.Context, addr string, maxSize int) (system.Requester, error) {
	c, err := sys.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	if sys.Floor {
		return &requester{c: c, reply: make([]byte, maxSize+floorHeaderRoom+1), floor: true}, nil
	}
	return &requester{c: c, reply: make([]byte, maxSize+1)}, nil
}

// Request runs one exchange.
func (r *requester) Request(ctx context.Context, payload []byte) error {
	request := payload
	if r.floor {
		r.frame = framed(r.frame, floorEchoPath, "", payload)
		request = r.frame
	}
	n, err := exchange(ctx, r.c, request, r.reply)
	if err != nil {
		return err
	}
	if r.floor {
		body, err := payloadOf(r.reply[:n])
		if err != nil {
			return err
		}
		n = len(body)
	}
	if n != len(payload) {
		return fmt.Errorf("quic-go: a reply of %d bytes, want %d", n, len(payload))
	}
	return nil
}

func (r *requester) Close() error { return closeConn(r.c) }

// exchange opens a bidirectional stream on c, writes payload, finishes it
// and reads the reply to its FIN into reply, returning its length.
func exchange(ctx context.Context, c *quic.Conn, payload, reply []byte) (int, error) {
	s, err := c.OpenStreamSync(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := s.Write(payload); err != nil {
		return 0, err
	}
	if err := s.Close(); err != nil {
		return 0, err
	}
	return system.ReadWhole(s, reply)
}
