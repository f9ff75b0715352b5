package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport/raftlayer"
)

// Before it proposes the ADMIT of a streamed body, the leader pushes the
// body to every other member in parallel, and proposes once enough of
// them hold it to make a quorum with itself (or once every push ended):
// their logs then store the ADMIT without a fetch. A member still
// receiving a push from the leader when the ADMIT arrives waits for that
// push instead of fetching the body again; a push from a member that no
// longer leads is not waited for. A push is only an early copy: a member that
// missed it fetches at StoreLogs, as before.

// payloadServed counts the payload streams a group served, for tests and
// stats.
type payloadServed struct {
	gets, pushes atomic.Uint64
}

// pushReceiving is one push being received: who sends it, and a channel
// closed when it ends.
type pushReceiving struct {
	from identity.Fingerprint
	done chan struct{}
}

// beginReceive notes that member from is pushing d; the returned function
// ends it. A second push of the same body meanwhile notes nothing.
func (p *Payloads) beginReceive(d [32]byte, from identity.Fingerprint) (end func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.receiving[d]; dup {
		return func() {}
	}
	done := make(chan struct{})
	p.receiving[d] = pushReceiving{from: from, done: done}
	return func() {
		p.mu.Lock()
		delete(p.receiving, d)
		p.mu.Unlock()
		close(done)
	}
}

// awaitReceiving waits until no push of d is being received, or stop. It
// waits only for a push whose sender worthWaiting approves (nil: any): a
// push from a member that no longer leads may never end, as its sender may
// have died mid-body (SIGKILL sends no close), leaving the stream to its
// idle deadline; the body is fetched instead.
func (p *Payloads) awaitReceiving(d [32]byte, worthWaiting func(from identity.Fingerprint) bool, stop <-chan struct{}) {
	p.mu.Lock()
	push, ok := p.receiving[d]
	p.mu.Unlock()
	if !ok || (worthWaiting != nil && !worthWaiting(push.from)) {
		return
	}
	select {
	case <-push.done:
	case <-stop:
	}
}

// pinExisting pins d, as a Commit of the same bytes would, when the store
// has it, making it durable first for a flushed group.
func (p *Payloads) pinExisting(d [32]byte) (bool, error) {
	p.mu.Lock()
	if !p.existsLocked(d) {
		p.mu.Unlock()
		return false, nil
	}
	p.pinLocked(d)
	p.mu.Unlock()
	if err := p.makeDurable(d, false); err != nil {
		p.Release(d)
		return false, err
	}
	return true, nil
}

// receivePush takes a body a member pushes, answering once it is durable
// here (pinned for the ADMIT to come). A body already here is not read.
// A body that is not the one its header names closes the member's
// connection; nothing of it is kept.
func (g *Group) receivePush(s *raftlayer.Stream, req fetchRequest) {
	g.served.pushes.Add(1)
	end := g.bodies.beginReceive(req.digest, s.Peer())
	defer end()
	answer := func(status byte) { s.Write([]byte{status}) }
	if had, err := g.bodies.pinExisting(req.digest); had || err != nil {
		s.Stream.CancelRead(0) // the rest is not needed
		if err != nil {
			answer(pushRefused)
			return
		}
		answer(pushStored)
		return
	}
	body, err := g.bodies.NewBody()
	if err != nil {
		answer(pushRefused)
		return
	}
	if err := readStreamedBody(idleDeadlineReader{s, g.transferStall}, req.digest, req.length, body); err != nil {
		body.Abort()
		if errors.Is(err, errFetchMalformed) {
			g.badPeer(s, "bad payload push", err)
		} else {
			answer(pushRefused) // a failing stream or disk: the member fetches later
		}
		return
	}
	got, _, err := body.Commit()
	if err == nil && got != req.digest {
		g.bodies.Release(got)
		err = fmt.Errorf("payload push: body %x was stored as %x", req.digest, got)
	}
	if err != nil {
		g.node.log.Warn("cluster: a pushed body could not be stored", "queue", g.Path, "err", err)
		answer(pushRefused)
		return
	}
	answer(pushStored)
}

// closeOnStop closes s when the node stops before the returned function
// is called: a stopping node ends its payload streams at once.
func (g *Group) closeOnStop(s *raftlayer.Stream) (done func()) {
	finished := make(chan struct{})
	go func() {
		select {
		case <-g.node.stop:
			s.Close()
		case <-finished:
		}
	}()
	return func() { close(finished) }
}

// pushTo pushes body d to the member at addr; nil once that member said
// the body is durable there.
func (g *Group) pushTo(addr string, d [32]byte, length uint64) error {
	rc, err := g.bodies.open(d)
	if err != nil {
		return err
	}
	defer rc.Close()
	if rc.length != length {
		return fmt.Errorf("payload push: body %x holds %d bytes, the ADMIT says %d", d, rc.length, length)
	}
	s, err := g.port.DialFetch(addr, fetchRequestTimeout)
	if err != nil {
		return err
	}
	defer s.Close()
	defer g.closeOnStop(s)()
	copied := make(chan error, 1)
	go func() {
		_, err := s.Write(fetchRequest{push: true, digest: d, length: length}.encode())
		if err == nil {
			_, err = io.Copy(idleDeadlineWriter{s}, rc)
		}
		if err == nil {
			err = s.Stream.Close()
		}
		copied <- err
	}()
	answered := make(chan error, 1)
	var status [1]byte
	go func() {
		_, err := io.ReadFull(s, status[:])
		answered <- err
	}()
	copying := true
	for {
		select {
		case <-copied:
			// The member answers once the body is durable: that may take
			// an fsync, not a stall.
			copying = false
			s.SetReadDeadline(time.Now().Add(fetchIdleTimeout))
		case err := <-answered:
			if copying { // it had the body, or gave up on it
				s.Stream.CancelWrite(0)
				<-copied
			}
			switch {
			case err != nil:
				return fmt.Errorf("payload push to %s: %w", addr, err)
			case status[0] != pushStored:
				return fmt.Errorf("payload push to %s: the member could not store body %x", addr, d)
			}
			return nil
		}
	}
}

// pushBody pushes body d to every other member in parallel and returns
// once enough of them hold it to make a quorum with this member, every
// push ended, or ctx ended. Pushes still going on when it returns go on.
func (g *Group) pushBody(ctx context.Context, d [32]byte, length uint64) {
	need := g.node.file.Quorum() - 1
	results := make(chan error, len(g.node.file.Members))
	started := 0
	for _, m := range g.node.file.Members {
		if m.Raft == g.node.self.Raft {
			continue
		}
		if g.node.goBackground(func() { results <- g.pushTo(m.Raft, d, length) }) {
			started++
		}
	}
	for stored, ended := 0, 0; stored < need && ended < started; ended++ {
		select {
		case err := <-results:
			if err == nil {
				stored++
			}
		case <-ctx.Done():
			return
		}
	}
}
