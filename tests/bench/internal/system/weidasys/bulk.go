package weidasys

import (
	"context"
	"io"

	weida "github.com/weida-go/weida/core"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// bulkReadBuffer is the size of each read of a bulk transfer.
const bulkReadBuffer = 64 << 10

// bulkSink is a Puller that reads one transfer as a stream.
type bulkSink struct {
	*bound
	loops *system.Loops
}

// StartBulkSink implements system.System: RecvStream, then read to EOF.
func (System) StartBulkSink(_ context.Context, done func(int64, error)) (system.Server, error) {
	b, err := bind()
	if err != nil {
		return nil, err
	}
	pull, err := b.binding.Puller(bulkPath)
	if err != nil {
		b.rt.Shutdown()
		return nil, err
	}
	s := &bulkSink{bound: b, loops: system.NewLoops()}
	s.loops.Go(func(ctx context.Context) {
		in, err := pull.RecvStream(ctx)
		if err != nil {
			done(0, err)
			return
		}
		defer in.Close()
		n, err := io.CopyBuffer(io.Discard, onlyReader{in}, make([]byte, bulkReadBuffer))
		done(n, err)
	})
	return s, nil
}

// onlyReader hides a reader's other methods so io.CopyBuffer uses the
// buffer it is given.
type onlyReader struct{ io.Reader }

func (s *bulkSink) Addr() string { return s.binding.URL(bulkPath) }

func (s *bulkSink) Close() error {
	s.loops.Stop(nil)
	s.rt.Shutdown()
	return nil
}

// bulkSender is a Pusher that Opens one transfer and streams into it.
type bulkSender struct {
	src *pusher
}

// DialBulk implements system.System.
func (System) DialBulk(ctx context.Context, addr string) (system.BulkSender, error) {
	src, err := dialPusher(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &bulkSender{src: src}, nil
}

func (b *bulkSender) Send(ctx context.Context, total int64, chunk []byte) error {
	out, err := b.src.p.Open(ctx, weida.TransferMeta{})
	if err != nil {
		return err
	}
	for sent := int64(0); sent < total; {
		n := min(int64(len(chunk)), total-sent)
		if _, err := out.Write(chunk[:n]); err != nil {
			out.Cancel()
			return err
		}
		sent += n
	}
	_, err = out.Finish()
	return err
}

func (b *bulkSender) Close() error { return b.src.Close() }
