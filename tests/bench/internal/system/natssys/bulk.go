package natssys

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// Bulk flow control: the receiver acknowledges every ackEvery bytes and
// the sender keeps at most window bytes unacknowledged, a window well
// above QUIC's 1 MiB per stream so pacing costs NATS little.
const (
	ackEvery = 1 << 20
	window   = 8 << 20
)

// StartBulkSink implements system.System: chunks on the data subject are
// counted until an empty one marks the end; progress is acknowledged on
// the ack subject.
func (System) StartBulkSink(_ context.Context, done func(int64, error)) (system.Server, error) {
	b, err := startBroker()
	if err != nil {
		return nil, err
	}
	var n, acked int64 // touched only by the subscription's one callback goroutine
	ack := func() { _ = b.nc.Publish(bulkAckSubject, binary.BigEndian.AppendUint64(nil, uint64(n))) }
	err = subscribe(b.nc, bulkDataSubject, func(m *nats.Msg) {
		if len(m.Data) == 0 {
			done(n, nil)
			return
		}
		if n += int64(len(m.Data)); n-acked >= ackEvery {
			acked = n
			ack()
		}
	})
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// bulkSender publishes chunks while the unacknowledged bytes fit the window.
type bulkSender struct {
	client
	acked    atomic.Int64
	progress chan struct{} // signalled (lossily) on every acknowledgement
}

// DialBulk implements system.System.
func (System) DialBulk(_ context.Context, addr string) (system.BulkSender, error) {
	nc, err := connect(addr)
	if err != nil {
		return nil, err
	}
	s := &bulkSender{client: client{nc}, progress: make(chan struct{}, 1)}
	err = subscribe(nc, bulkAckSubject, func(m *nats.Msg) {
		if len(m.Data) == 8 {
			s.acked.Store(int64(binary.BigEndian.Uint64(m.Data)))
			select {
			case s.progress <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

func (s *bulkSender) Send(ctx context.Context, total int64, chunk []byte) error {
	for sent := int64(0); sent < total; {
		for sent-s.acked.Load() >= window {
			select {
			case <-s.progress:
			case <-ctx.Done():
				return fmt.Errorf("nats: waiting for the receiver at %d of %d bytes: %w", sent, total, ctx.Err())
			}
		}
		n := min(int64(len(chunk)), total-sent)
		if err := s.nc.Publish(bulkDataSubject, chunk[:n]); err != nil {
			return err
		}
		sent += n
	}
	return s.nc.Publish(bulkDataSubject, nil) // the end marker
}
