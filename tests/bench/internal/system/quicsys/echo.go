package quicsys

import (
	"context"
	"fmt"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// StartEcho implements system.System: every bidirectional stream is read
// to its FIN, answered with its bytes and finished.
func (System) StartEcho(_ context.Context, maxSize int) (system.Server, error) {
	return listen(func(ctx context.Context, c *quic.Conn) {
		buf := make([]byte, maxSize+1)
		for {
			s, err := c.AcceptStream(ctx)
			if err != nil {
				return
			}
			n, err := system.ReadWhole(s, buf)
			if err == nil {
				_, err = s.Write(buf[:n])
			}
			if err != nil {
				s.CancelRead(abortCode)
				s.CancelWrite(abortCode)
				continue
			}
			_ = s.Close()
		}
	})
}

// requester is one client connection.
type requester struct {
	c     *quic.Conn
	reply []byte
}

// DialEcho implements system.System.
func (System) DialEcho(ctx context.Context, addr string, maxSize int) (system.Requester, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &requester{c: c, reply: make([]byte, maxSize+1)}, nil
}

// Request opens a stream, writes payload, finishes it and reads the reply
// to its FIN.
func (r *requester) Request(ctx context.Context, payload []byte) error {
	s, err := r.c.OpenStreamSync(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Write(payload); err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	n, err := system.ReadWhole(s, r.reply)
	if err != nil {
		return err
	}
	if n != len(payload) {
		return fmt.Errorf("quic-go: a reply of %d bytes, want %d", n, len(payload))
	}
	return nil
}

func (r *requester) Close() error { return closeConn(r.c) }
