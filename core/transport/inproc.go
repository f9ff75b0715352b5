package transport

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// inprocConn is one in-process connection: two sides (0 dialled, 1
// accepted), the control stream HELLO flows on, and the live streams, which
// all fail with the connection's loss when either side closes it.
type inprocConn struct {
	bus    string
	window int // per-direction buffer, the stream window
	ctrl   *inprocStream
	sides  [2]inprocSide
	done   chan struct{}

	mu    sync.Mutex
	live  map[*inprocStream]int // stream → the side that opened it
	ended bool
	errs  [2]error // each side's view of the end, set before done closes
}

func newInprocConn(bus string, window int) *inprocConn {
	c := &inprocConn{bus: bus, window: window, done: make(chan struct{}), live: make(map[*inprocStream]int)}
	c.ctrl = newInprocStream(window, 0, 0, nil)
	for i := range c.sides {
		s := &c.sides[i]
		s.c, s.idx = c, i
		s.incoming = make(chan *inprocEnd, MaxLocalStreams)
		s.slots.init()
	}
	return c
}

// close ends the connection from side i: i sees it closed locally, the
// other side closed by the peer, both with code and reason.
func (c *inprocConn) close(i int, code wire.AppCode, reason string) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.errs[i] = &quic.ApplicationError{ErrorCode: quic.ApplicationErrorCode(code), ErrorMessage: reason}
	c.errs[1-i] = &quic.ApplicationError{Remote: true, ErrorCode: quic.ApplicationErrorCode(code), ErrorMessage: reason}
	live := c.live
	c.live = nil
	c.mu.Unlock()
	close(c.done)
	c.ctrl.fail(c.errs[0], c.errs[1])
	for st, opener := range live {
		st.fail(c.errs[opener], c.errs[1-opener])
	}
}

// streamDone forgets a stream both of whose directions completed and gives
// its opener's slot back.
func (c *inprocConn) streamDone(st *inprocStream) {
	c.mu.Lock()
	opener, ok := c.live[st]
	delete(c.live, st)
	c.mu.Unlock()
	if ok {
		c.sides[opener].slots.release()
	}
}

// inprocSide is one side of an in-process connection; it is the localLink
// of that side's Conn.
type inprocSide struct {
	c        *inprocConn
	idx      int
	incoming chan *inprocEnd // streams the peer opened, not yet accepted
	slots    localSlots      // streams this side opened that are live
	nextID   atomic.Int64
}

func (s *inprocSide) control() localStream {
	if s.idx == 0 {
		return &s.c.ctrl.opener
	}
	return &s.c.ctrl.acceptor
}

func (s *inprocSide) id() quic.StreamID { return quic.StreamID(s.nextID.Add(1)) }

func (s *inprocSide) open(ctx context.Context, exchange bool) (localStream, error) {
	if err := s.slots.acquire(ctx, s.c.done); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, s.cause()
	}
	peer := &s.c.sides[1-s.idx]
	st := newInprocStream(s.c.window, s.id(), peer.id(), s.c.streamDone)
	st.acceptor.exchange = exchange
	s.c.mu.Lock()
	if s.c.ended {
		s.c.mu.Unlock()
		s.slots.release()
		return nil, s.cause()
	}
	s.c.live[st] = s.idx
	s.c.mu.Unlock()
	// The peer's accept loop drains its queue at once; the queue only
	// smooths bursts.
	select {
	case peer.incoming <- &st.acceptor:
		return &st.opener, nil
	case <-s.c.done:
		return nil, s.cause()
	}
}

func (s *inprocSide) accept() (localStream, error) {
	select {
	case e := <-s.incoming:
		return e, nil
	case <-s.c.done:
		return nil, s.cause()
	}
}

func (s *inprocSide) close(code wire.AppCode, reason string) { s.c.close(s.idx, code, reason) }

func (s *inprocSide) done() <-chan struct{} { return s.c.done }

func (s *inprocSide) cause() error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	return s.c.errs[s.idx]
}

func (s *inprocSide) awaitConsumed(ctx context.Context) error {
	err := s.slots.awaitIdle(ctx, s.c.done)
	if err != nil && ctx.Err() == nil {
		return lossError(s.cause())
	}
	return err
}

func (s *inprocSide) addrs() (string, string) { return s.c.bus, s.c.bus }

func (s *inprocSide) peer() (LocalPeer, bool) { return LocalPeer{}, false }
