package quicsys

import (
	"context"
	"fmt"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// The floor (System{Floor: true}, "quic-go+floor") is raw quic-go doing the
// least weida's protocol and API require on top of the stream work, each
// piece done the cheapest way raw quic-go allows:
//
//   - the qlog tracer, as quic-go+qlog has it: weida's transport receipts,
//     its drain and its graceful close are read from quic-go's qlog events;
//   - weida's framing before each payload: the preamble and DATA header a
//     Send, Publish, Request or reply writes (path, content length, and a
//     publication's topic), written with the payload in one write and
//     skipped by the receiver;
//   - one hand-off of each received message or request, copied out of the
//     read buffer, to a consumer goroutine through a queue of
//     weida.DefaultEndpointQueue: a weida receive call (Recv, Accept) runs
//     on the application's goroutine, and one sink's or replier's queue is
//     fed by every connection of its path;
//   - a one-way message's stream credit held until its consumer took it
//     (RequireStreamCreditRelease), as weida holds it until the payload was
//     read: what makes a full queue stall its senders and a drain wait for
//     the reader. A request's stream gives its credit back when accepted,
//     as weida's does.
//
// It has none of weida's HELLO, routing, limits, sequencing or API state,
// so weida's figure over this one is what weida's own code costs beyond
// what its design requires. A bulk transfer, a connect and an idle
// connection are quic-go+qlog's.

// Paths and topic of the floor's headers, as long as weidasys's.
const (
	floorSinkPath = "/sink"
	floorPubPath  = "/pub"
	floorEchoPath = "/echo"
	floorTopic    = "bench.ticks"
)

// floorHeaderRoom is read-buffer room for the floor's largest header.
const floorHeaderRoom = 64

// framed is what a floor sender writes, in buf's room: the preamble and
// DATA header weida writes before payload to path (none for a reply;
// under topic unless it is empty), then payload.
func framed(buf []byte, path, topic string, payload []byte) []byte {
	h := wire.Data{ContentLen: wire.Some(uint64(len(payload)))}
	if path != "" { // a reply's header names no path
		h.Endpoint = wire.Some(path)
	}
	if topic != "" {
		h.Topic = wire.Some(topic)
	}
	return append(wire.AppendDataFrame(buf[:0], &h), payload...)
}

// payloadOf is what follows msg's preamble and header.
func payloadOf(msg []byte) ([]byte, error) {
	p, n, err := wire.ParsePreamble(msg, wire.DefaultMaxHeaderBytes)
	if err != nil {
		return nil, fmt.Errorf("quic-go+floor: %w", err)
	}
	if end := n + int(p.HeaderLen); end <= len(msg) {
		return msg[end:], nil
	}
	return nil, fmt.Errorf("quic-go+floor: a message of %d bytes ends inside its header", len(msg))
}

// creditHolder is a stream whose credit returns to its peer once released.
type creditHolder interface{ ReleaseStreamCredit() }

// handed is one received message on its way to its consumer, and the
// stream whose credit it holds.
type handed struct {
	body   []byte
	err    error
	credit creditHolder
}

// handoff is the queue between accept loops and one consumer goroutine.
type handoff chan handed

func newHandoff() handoff { return make(handoff, weida.DefaultEndpointQueue) }

// give queues a copy of msg's payload (or err), holding credit's stream
// until the consumer took it. It reports false once ctx ended.
func (h handoff) give(ctx context.Context, msg []byte, err error, credit creditHolder) bool {
	m := handed{err: err, credit: credit}
	if err == nil {
		var body []byte
		if body, m.err = payloadOf(msg); m.err == nil {
			m.body = append([]byte(nil), body...)
		}
	}
	select {
	case h <- m:
		return true
	case <-ctx.Done():
		credit.ReleaseStreamCredit()
		return false
	}
}

// consume hands each queued message to each, then gives its stream's
// credit back, until ctx ends.
func (h handoff) consume(ctx context.Context, each func(body []byte, err error)) {
	for {
		select {
		case m := <-h:
			each(m.body, m.err)
			m.credit.ReleaseStreamCredit()
		case <-ctx.Done():
			return
		}
	}
}

// acceptHandingOff is an accept loop of c's unidirectional streams: each
// is read whole (at most maxSize payload bytes) and handed to q.
func acceptHandingOff(ctx context.Context, c *quic.Conn, maxSize int, q handoff) {
	readEachUni(ctx, c, make([]byte, maxSize+floorHeaderRoom+1), func(s *quic.ReceiveStream, msg []byte, err error) bool {
		return q.give(ctx, msg, err, s)
	})
}

// startFloorSink is StartSink's floor: every connection's accept loop
// hands its messages to the sink's one consumer.
func (sys System) startFloorSink(maxSize int, received func(int, error)) (system.Server, error) {
	q := newHandoff()
	l, err := sys.listen(func(ctx context.Context, c *quic.Conn) { acceptHandingOff(ctx, c, maxSize, q) })
	if err != nil {
		return nil, err
	}
	l.loops.Go(func(ctx context.Context) {
		q.consume(ctx, func(body []byte, err error) { received(len(body), err) })
	})
	return l, nil
}

// floorRequest is one accepted request on its way to the replier.
type floorRequest struct {
	s    *quic.Stream
	body []byte
}

// startFloorEcho is StartEcho's floor: every connection's accept loop
// reads each request whole and hands it to the server's one replier, which
// writes the framed reply and finishes the stream.
func (sys System) startFloorEcho(maxSize int) (system.Server, error) {
	q := make(chan floorRequest, weida.DefaultEndpointQueue)
	l, err := sys.listen(func(ctx context.Context, c *quic.Conn) {
		buf := make([]byte, maxSize+floorHeaderRoom+1)
		for {
			s, err := c.AcceptStream(ctx)
			if err != nil {
				return
			}
			s.ReleaseStreamCredit()
			n, err := system.ReadWhole(s, buf)
			var body []byte
			if err == nil {
				body, err = payloadOf(buf[:n])
			}
			if err != nil {
				s.CancelRead(abortCode)
				s.CancelWrite(abortCode)
				continue
			}
			select {
			case q <- floorRequest{s: s, body: append([]byte(nil), body...)}:
			case <-ctx.Done():
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	l.loops.Go(func(ctx context.Context) {
		var reply []byte
		for {
			select {
			case r := <-q:
				reply = framed(reply, "", "", r.body)
				if _, err := r.s.Write(reply); err != nil {
					r.s.CancelWrite(abortCode)
					continue
				}
				_ = r.s.Close()
			case <-ctx.Done():
				return
			}
		}
	})
	return l, nil
}

// floorSubscribe runs a floor subscriber on c: its accept loop hands each
// copy to its consumer, which hands it to received.
func floorSubscribe(loops *system.Loops, c *quic.Conn, maxSize int, received func([]byte)) {
	q := newHandoff()
	loops.Go(func(ctx context.Context) { acceptHandingOff(ctx, c, maxSize, q) })
	loops.Go(func(ctx context.Context) {
		q.consume(ctx, func(body []byte, err error) {
			if err == nil {
				received(body)
			}
		})
	})
}
