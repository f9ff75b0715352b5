package rawquic

import (
	"context"
	"fmt"
	"io"

	"github.com/quic-go/quic-go"
)

// abortCode resets a stream the server loop could not serve.
const abortCode quic.StreamErrorCode = 1

// ServeEcho starts the server loop for exchanges: every bidirectional
// stream the client opens is read to its FIN (at most maxRequest bytes),
// answered with reply, and finished. A stream that fails is reset, so the
// client's Exchange fails instead of hanging, and Close reports it.
func (p *Pair) ServeEcho(reply []byte, maxRequest int) {
	buf := make([]byte, maxRequest+1)
	p.serve(func() error {
		for {
			s, err := p.Server.AcceptStream(context.Background())
			if err != nil {
				return err
			}
			if err := answer(s, buf, reply); err != nil {
				s.CancelRead(abortCode)
				s.CancelWrite(abortCode)
				p.fail(err)
			}
			if p.holdsCredit {
				s.ReleaseStreamCredit()
			}
		}
	})
}

func answer(s *quic.Stream, buf, reply []byte) error {
	if _, err := ReadMessage(s, buf); err != nil {
		return fmt.Errorf("rawquic: reading a request: %w", err)
	}
	if _, err := s.Write(reply); err != nil {
		return fmt.Errorf("rawquic: writing a reply: %w", err)
	}
	return s.Close()
}

// ServeDrain starts the server loop for one-way messages: every
// unidirectional stream is read to its FIN (at most maxMessage bytes) and
// then reported to received, with its length or the error that cut it
// short, on the loop's one goroutine.
func (p *Pair) ServeDrain(maxMessage int, received func(n int, err error)) {
	p.drain(maxMessage, func(msg []byte, err error, s *quic.ReceiveStream) {
		received(len(msg), err)
		p.released(s)
	}, nil)
}

// ServeDrainHandedOff is ServeDrain with the one hand-off a receive API
// needs when its consumer is not the connection's accept loop (one puller
// fed by any number of connections): each message is copied out of the
// read buffer and passed through a queue of queueLen to a consumer
// goroutine, which reports it to received. When the pair holds stream
// credit, the consumer releases each stream's once it took the message, as
// a weida Puller does once its caller read the payload.
func (p *Pair) ServeDrainHandedOff(maxMessage, queueLen int, received func(n int, err error)) {
	type message struct {
		body []byte
		err  error
		s    *quic.ReceiveStream
	}
	queue := make(chan message, queueLen)
	go func() {
		for m := range queue {
			received(len(m.body), m.err)
			p.released(m.s)
		}
	}()
	p.drain(maxMessage, func(msg []byte, err error, s *quic.ReceiveStream) {
		queue <- message{body: append([]byte(nil), msg...), err: err, s: s}
	}, func() { close(queue) })
}

// released gives s's credit back when the pair holds it until then.
func (p *Pair) released(s *quic.ReceiveStream) {
	if p.holdsCredit {
		s.ReleaseStreamCredit()
	}
}

// drain runs the server loop reading every unidirectional stream to its
// FIN into one buffer and handing it to each; ended (when not nil) runs
// once the loop stops.
func (p *Pair) drain(maxMessage int, each func(msg []byte, err error, s *quic.ReceiveStream), ended func()) {
	buf := make([]byte, maxMessage+1)
	p.serve(func() error {
		if ended != nil {
			defer ended()
		}
		for {
			s, err := p.Server.AcceptUniStream(context.Background())
			if err != nil {
				return err
			}
			n, err := ReadMessage(s, buf)
			if err != nil {
				s.CancelRead(abortCode)
			}
			each(buf[:n], err, s)
		}
	})
}

// Exchange opens a bidirectional stream, writes req, finishes it, and reads
// the reply to its FIN into reply, returning the reply's length.
func (p *Pair) Exchange(ctx context.Context, req, reply []byte) (int, error) {
	s, err := p.Client.OpenStreamSync(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := s.Write(req); err != nil {
		return 0, err
	}
	if err := s.Close(); err != nil {
		return 0, err
	}
	return ReadMessage(s, reply)
}

// Push opens a unidirectional stream, writes msg and finishes it, without
// waiting for anything.
func (p *Pair) Push(ctx context.Context, msg []byte) error {
	s, err := p.Client.OpenUniStreamSync(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Write(msg); err != nil {
		return err
	}
	return s.Close()
}

// ReadMessage reads r to io.EOF into buf and returns the byte count. A
// message that fills buf is refused as too long, so size buf one byte above
// the largest message expected; nothing ever grows with the peer's input.
func ReadMessage(r io.Reader, buf []byte) (int, error) {
	n := 0
	for {
		m, err := r.Read(buf[n:])
		n += m
		// Checked before EOF: a read may fill buf and report EOF at once.
		if n == len(buf) {
			return n, fmt.Errorf("the message is longer than %d bytes", len(buf)-1)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
