package transport

import (
	"io"
	"sync"

	"github.com/quic-go/quic-go"
)

// pipe is one direction of an in-process stream: a bounded byte buffer
// between one writer and one reader with QUIC's stream endings — FIN, the
// writer's reset and the reader's stop, each with its code — so a cancel is
// never read as a complete payload (SEMANTICS.md §2.11).
//
// The buffer is the peer transport's memory: bytes a Write returned for,
// and the FIN once Close returned, are held by the receiving side. Writes
// wait while window bytes are unread, like a QUIC stream window. Bytes are
// copied once on the way in (io.Writer lets the caller reuse p at once) and
// once on the way out.
type pipe struct {
	mu     sync.Mutex
	cond   sync.Cond
	chunks [][]byte // unread bytes, oldest first; chunks[0][off:] is next
	off    int
	size   int // unread bytes
	window int

	fin       bool   // the writer finished
	reset     bool   // the writer reset: the reader sees resetCode, never EOF
	resetCode uint64 //
	stopped   bool   // the reader stopped: writes fail with stopCode
	stopCode  uint64 //
	failed    error  // the connection ended: the writer's view of why
	failedR   error  // the reader's view (the two sides may differ)
	complete  bool   // nothing more can pass (EOF read, stop, reset or failure)

	// sendDone, once asked for, is closed when the writer can write no
	// more (FIN, reset, stop or failure): an exchange's Canceled follows it.
	sendDone       chan struct{}
	sendDoneClosed bool

	// onComplete runs once, outside the lock, when the direction completes.
	onComplete func()
}

// init prepares a pipe in place (pipes live inside their stream, and the
// condition variable points at the pipe's own mutex, so it must not move).
func (p *pipe) init(window int, onComplete func()) {
	p.window, p.onComplete = window, onComplete
	p.cond.L = &p.mu
}

// sendEndedLocked closes sendDone when the writing side has ended.
func (p *pipe) sendEndedLocked() {
	if p.sendDone != nil && !p.sendDoneClosed && (p.fin || p.reset || p.stopped || p.failed != nil) {
		p.sendDoneClosed = true
		close(p.sendDone)
	}
}

// completeLocked marks the direction complete and returns the callback to
// run after unlocking (nil when it already was).
func (p *pipe) completeLocked() func() {
	if p.complete {
		return nil
	}
	p.complete = true
	p.chunks, p.off, p.size = nil, 0, 0
	p.cond.Broadcast()
	p.sendEndedLocked()
	return p.onComplete
}

func run(f func()) {
	if f != nil {
		f()
	}
}

// write copies b into the buffer. With wait it waits for room until all of
// b is in; without, it takes all of b at once or nothing (quic.ErrWouldBlock).
func (p *pipe) write(b []byte, wait bool) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		if err := p.writeErrLocked(); err != nil {
			return n, err
		}
		room := p.window - p.size
		if room <= 0 || (!wait && room < len(b)) {
			if !wait {
				return 0, quic.ErrWouldBlock
			}
			p.cond.Wait()
			continue
		}
		k := min(room, len(b))
		p.chunks = append(p.chunks, append([]byte(nil), b[:k]...))
		p.size += k
		n += k
		b = b[k:]
		p.cond.Broadcast()
	}
	return n, nil
}

func (p *pipe) writeErrLocked() error {
	switch {
	case p.stopped:
		return &quic.StreamError{ErrorCode: quic.StreamErrorCode(p.stopCode), Remote: true}
	case p.reset:
		return &quic.StreamError{ErrorCode: quic.StreamErrorCode(p.resetCode), Remote: false}
	case p.failed != nil:
		return p.failed
	case p.fin:
		return errWriteAfterFinish
	}
	return nil
}

// read takes buffered bytes, waiting for some, the FIN or an ending.
func (p *pipe) read(b []byte) (int, error) {
	p.mu.Lock()
	for {
		switch {
		case p.reset:
			p.mu.Unlock()
			return 0, &quic.StreamError{ErrorCode: quic.StreamErrorCode(p.resetCode), Remote: true}
		case p.stopped:
			p.mu.Unlock()
			return 0, &quic.StreamError{ErrorCode: quic.StreamErrorCode(p.stopCode), Remote: false}
		case p.failedR != nil:
			err := p.failedR
			p.mu.Unlock()
			return 0, err
		case p.size > 0:
			n := 0
			for n < len(b) && len(p.chunks) > 0 {
				k := copy(b[n:], p.chunks[0][p.off:])
				n += k
				p.off += k
				if p.off == len(p.chunks[0]) {
					p.chunks[0] = nil
					p.chunks, p.off = p.chunks[1:], 0
				}
			}
			p.size -= n
			p.cond.Broadcast()
			p.mu.Unlock()
			return n, nil
		case p.fin:
			done := p.completeLocked()
			p.mu.Unlock()
			run(done)
			return 0, io.EOF
		}
		p.cond.Wait()
	}
}

// finish is the writer's FIN. A reader that already stopped makes it fail
// with the stop code: the peer discarded the transfer.
func (p *pipe) finish() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.writeErrLocked(); err != nil {
		return err
	}
	p.fin = true
	p.cond.Broadcast()
	p.sendEndedLocked()
	return nil
}

// cancelWrite is the writer's RESET; it does nothing once the FIN was
// queued, as a unix stream's does once its FIN was written: the transfer
// got out whole, and the receipt that resolved with the FIN stays true.
func (p *pipe) cancelWrite(code uint64) {
	p.mu.Lock()
	if p.complete || p.reset || p.fin {
		p.mu.Unlock()
		return
	}
	p.reset, p.resetCode = true, code
	done := p.completeLocked()
	p.mu.Unlock()
	run(done)
}

// cancelRead is the reader's STOP_SENDING: buffered bytes are dropped and
// the writer's next write, or its FIN, fails with code.
func (p *pipe) cancelRead(code uint64) {
	p.mu.Lock()
	if p.complete {
		p.mu.Unlock()
		return
	}
	p.stopped, p.stopCode = true, code
	done := p.completeLocked()
	p.mu.Unlock()
	run(done)
}

// fail ends the direction with the connection's loss, as the writer (w)
// and the reader (r) each see it.
func (p *pipe) fail(w, r error) {
	p.mu.Lock()
	if p.complete {
		p.mu.Unlock()
		return
	}
	p.failed, p.failedR = w, r
	done := p.completeLocked()
	p.mu.Unlock()
	run(done)
}

// sendEnded returns a channel closed once the writer can write no more.
func (p *pipe) sendEnded() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sendDone == nil {
		p.sendDone = make(chan struct{})
		p.sendEndedLocked()
	}
	return p.sendDone
}
