package rawquic

import (
	"context"
	"fmt"
	"io"
)

// ServeStreamEcho starts a server loop that copies every bidirectional
// stream straight back while it arrives (the reply streams during the
// request), through one 64 KiB buffer per stream.
func (p *Pair) ServeStreamEcho() {
	p.serve(func() error {
		for {
			s, err := p.Server.AcceptStream(context.Background())
			if err != nil {
				return err
			}
			go func() {
				buf := make([]byte, 64<<10)
				if _, err := io.CopyBuffer(s, s, buf); err != nil {
					s.CancelRead(abortCode)
					s.CancelWrite(abortCode)
					p.fail(fmt.Errorf("rawquic: echoing a stream: %w", err))
					return
				}
				_ = s.Close()
			}()
		}
	})
}

// StreamEcho sends size bytes of chunk repeated on one stream while reading
// the echo back concurrently, and returns how many bytes came back.
func (p *Pair) StreamEcho(ctx context.Context, chunk []byte, size int64) (int64, error) {
	s, err := p.Client.OpenStreamSync(ctx)
	if err != nil {
		return 0, err
	}
	written := make(chan error, 1)
	go func() {
		var sent int64
		for sent < size {
			n := min(int64(len(chunk)), size-sent)
			if _, err := s.Write(chunk[:n]); err != nil {
				written <- err
				return
			}
			sent += n
		}
		written <- s.Close()
	}()
	buf := make([]byte, 64<<10)
	got, rerr := io.CopyBuffer(io.Discard, s, buf)
	if werr := <-written; werr != nil {
		return got, werr
	}
	return got, rerr
}
