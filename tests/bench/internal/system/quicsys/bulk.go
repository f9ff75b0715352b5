package quicsys

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// bulkReadBuffer is the size of each read of a bulk transfer.
const bulkReadBuffer = 64 << 10

// StartBulkSink implements system.System: the first unidirectional stream
// of the first connection is read to its FIN.
func (sys System) StartBulkSink(_ context.Context, done func(int64, error)) (system.Server, error) {
	var taken atomic.Bool // only the first connection carries the transfer
	return sys.listen(func(ctx context.Context, c *quic.Conn) {
		if !taken.CompareAndSwap(false, true) {
			return
		}
		s, err := c.AcceptUniStream(ctx)
		if err != nil {
			done(0, err)
			return
		}
		n, err := io.CopyBuffer(io.Discard, onlyReader{s}, make([]byte, bulkReadBuffer))
		s.ReleaseStreamCredit() // a no-op but for the floor
		done(n, err)
	})
}

// onlyReader hides a reader's other methods so io.CopyBuffer uses the
// buffer it is given.
type onlyReader struct{ io.Reader }

// bulkSender is one client connection.
type bulkSender struct{ c *quic.Conn }

// DialBulk implements system.System.
func (sys System) DialBulk(ctx context.Context, addr string) (system.BulkSender, error) {
	c, err := sys.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &bulkSender{c: c}, nil
}

func (b *bulkSender) Send(ctx context.Context, total int64, chunk []byte) error {
	s, err := b.c.OpenUniStreamSync(ctx)
	if err != nil {
		return err
	}
	for sent := int64(0); sent < total; {
		n := min(int64(len(chunk)), total-sent)
		if _, err := s.Write(chunk[:n]); err != nil {
			s.CancelWrite(abortCode)
			return err
		}
		sent += n
	}
	return s.Close()
}

func (b *bulkSender) Close() error { return closeConn(b.c) }
