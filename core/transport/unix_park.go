package transport

import (
	"bufio"
	"context"
	"net"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// Reverse connections (PROTOCOL.md §12): a unix dialling side parks up to
// MaxParkedReverse connections at the accepting side, which opens its
// streams toward the dialler on them. Each parked one holds one of the
// dialler's max_local_streams slots; a subscriber that parks none is
// refused when it subscribes, and a publisher that finds none drops that
// copy (NoParkedConnection).

// takeParked takes a reverse connection the dialler parked, waiting for
// one, bounded by ctx and the link's life.
func (l *unixLink) takeParked(ctx context.Context) (*net.UnixConn, error) {
	for {
		l.mu.Lock()
		if l.ended {
			l.mu.Unlock()
			return nil, l.cause()
		}
		if n := len(l.parked); n > 0 {
			c := l.parked[n-1]
			l.parked = l.parked[:n-1]
			l.mu.Unlock()
			return c, nil
		}
		changed := l.parkedC
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			// A publisher that finds none drops its copy and counts it
			// (PROTOCOL.md §12): this says which drop it was.
			return nil, errs.Wrap(errs.KindNoParkedConnection, ctx.Err(), "open abandoned: the peer parked no reverse connection")
		case <-l.doneCh:
			return nil, l.cause()
		}
	}
}

// park keeps a reverse connection for a later open; false at
// MaxParkedReverse or once the link ended (the caller closes it).
func (l *unixLink) park(c *net.UnixConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended || len(l.parked) >= MaxParkedReverse {
		return false
	}
	l.parked = append(l.parked, c)
	l.everParked = true
	close(l.parkedC)
	l.parkedC = make(chan struct{})
	return true
}

// awaitReverse reports whether this side can open streams toward the peer:
// always when it dialled; when it accepted, once the dialler parked a
// reverse connection, waiting up to wait for the first one (the dialler
// parks while its first transfers are already on their way).
func (l *unixLink) awaitReverse(wait time.Duration) bool {
	if l.dialling {
		return true
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		l.mu.Lock()
		ever, changed := l.everParked, l.parkedC
		l.mu.Unlock()
		if ever {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-l.doneCh:
			return false
		}
	}
}

// subscriberReachable reports whether a subscriber on c can be sent to: a
// unix dialler that parks no reverse connection cannot, and is refused
// when it subscribes (PROTOCOL.md §12). Other transports always can.
func (c *Conn) subscriberReachable() bool {
	l, ok := c.local.(*unixLink)
	return !ok || l.awaitReverse(c.cfg.Limits.HelloTimeout)
}

// parkReverse, on the dialling side, keeps MaxParkedReverse reverse
// connections parked at the peer; each one the peer opens a stream on is
// accepted and replaced.
func (l *unixLink) parkReverse() {
	for range MaxParkedReverse {
		go l.parkOne()
	}
}

// parkOne parks one reverse connection, holding one of this side's
// max_local_streams slots while it waits (a socket the peer keeps for this
// side, PROTOCOL.md §12), and replaces it once the peer opened a stream.
func (l *unixLink) parkOne() {
	if l.slots.acquireParked(l.doneCh) != nil {
		return
	}
	conn, err := l.dialStream(context.Background(), preambleReverse)
	if err != nil {
		l.slots.releaseParked()
		return
	}
	r := bufio.NewReaderSize(conn, readBufferSize)
	_, err = r.Peek(1)
	l.slots.releaseParked()
	if err != nil {
		// Refused (over max_parked_reverse) or the link ended: not replaced.
		_ = conn.Close()
		return
	}
	s := newUnixStream(l, conn, r, l.id(), nil)
	if !l.track(s) {
		if !l.hasEnded() {
			go l.parkOne() // refused over the bounds: the link goes on, so does its parking
		}
		return
	}
	select {
	case l.incoming <- s:
		go l.parkOne()
	case <-l.doneCh:
		s.abort()
	}
}
