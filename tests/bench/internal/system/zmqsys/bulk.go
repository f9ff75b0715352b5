package zmqsys

import (
	"context"

	"github.com/weida-go/weida/tests/bench/internal/system"
	"github.com/weida-go/weida/tests/bench/zmq"
)

// bulkMaxChunk is the largest message of a bulk transfer the sink takes.
const bulkMaxChunk = 1 << 20

// StartBulkSink implements system.System: a PULL socket counts message
// bytes until an empty message marks the end.
func (System) StartBulkSink(_ context.Context, done func(int64, error)) (system.Server, error) {
	return serve(zmq.Pull, func(_ context.Context, s *zmq.Socket) {
		buf := make([]byte, bulkMaxChunk+1)
		var total int64
		for {
			n, err := s.Recv(buf, 0)
			if err != nil {
				done(total, err)
				return
			}
			if n == 0 {
				done(total, nil)
				return
			}
			total += int64(n)
		}
	})
}

// bulkSender is a PUSH socket in its own context.
type bulkSender struct{ *node }

// DialBulk implements system.System.
func (System) DialBulk(ctx context.Context, addr string) (system.BulkSender, error) {
	n, err := dialNode(ctx, zmq.Push, addr)
	if err != nil {
		return nil, err
	}
	return &bulkSender{n}, nil
}

// Send sends total bytes as messages of len(chunk) and then the empty end
// marker; sends block at the high-water mark.
func (b *bulkSender) Send(_ context.Context, total int64, chunk []byte) error {
	for sent := int64(0); sent < total; {
		n := min(int64(len(chunk)), total-sent)
		if err := b.sock.Send(chunk[:n], 0); err != nil {
			return err
		}
		sent += n
	}
	return b.sock.Send(nil, 0)
}

func (b *bulkSender) Close() error { return b.close() }
