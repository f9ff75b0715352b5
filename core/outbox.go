package weida

import (
	"context"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// outbox holds whole-payload sends made while no connection is live, and
// writes them in order onto the next live one (SEMANTICS.md §8.5). It is an
// at-most-once hand-off, not a retry: responsibility ends when a body is
// written to a connection, and a body on a connection that dies before the
// peer's transport took it is lost (counted), never resent.
type outbox struct {
	rt *Runtime
	d  *dialer

	mu       sync.Mutex
	queue    []outboxItem
	bytes    int64
	flushing bool          // the flusher holds a popped item
	changed  chan struct{} // closed and replaced when the queue shrinks or grows
	dropped  uint64
	closed   bool
	wg       sync.WaitGroup
}

type outboxItem struct {
	payload []byte
	meta    TransferMeta
}

func newOutbox(rt *Runtime, d *dialer) *outbox {
	o := &outbox{rt: rt, d: d, changed: make(chan struct{})}
	rt.mu.Lock()
	rt.outboxes[o] = struct{}{}
	rt.mu.Unlock()
	o.wg.Add(1)
	go o.flush()
	return o
}

// send writes payload directly when a connection is live and nothing is
// queued ahead of it (no copy), else copies it into the outbox.
func (o *outbox) send(ctx context.Context, payload []byte, meta TransferMeta) error {
	conn, err := o.claim(len(payload))
	if err != nil {
		return err
	}
	if conn != nil {
		return writeWhole(ctx, conn, payload, meta)
	}
	defer o.mu.Unlock()
	_, err = o.enqueueLocked(ctx, payload, meta, true)
	return err
}

// claim checks a body of n bytes against the outbox and, when nothing is
// queued ahead of it, picks a live connection to write it on directly.
// It returns with o.mu held exactly when it returns neither a connection
// nor an error: the body then goes into the outbox.
func (o *outbox) claim(n int) (*transport.Conn, error) {
	if int64(n) > o.rt.cfg.OutboxBytes {
		return nil, errs.New(errs.KindLimitExceeded, "a body of %d bytes exceeds the outbox bound of %d bytes", n, o.rt.cfg.OutboxBytes)
	}
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil, errEndpointClosed()
	}
	if len(o.queue) == 0 && !o.flushing {
		o.d.mu.Lock()
		conn, _, err := o.d.pickLocked()
		o.d.mu.Unlock()
		if err != nil || conn != nil {
			o.mu.Unlock()
			return conn, err
		}
	}
	return nil, nil
}

// enqueueLocked copies the body in, applying the OutboxFull policy at a
// bound: under OutboxBlock it waits for room, bounded by ctx and
// SendTimeout, unless wait is false, when it reports false having queued
// nothing. True once the body is queued, or dropped under OutboxDrop.
func (o *outbox) enqueueLocked(ctx context.Context, payload []byte, meta TransferMeta, wait bool) (bool, error) {
	var timeout <-chan time.Time
	for o.fullForLocked(len(payload)) {
		switch o.rt.cfg.OutboxFull {
		case OutboxDrop:
			o.dropped++
			return true, nil
		case OutboxReject:
			return false, errs.New(errs.KindLimitExceeded, "the outbox is full (%d messages, %d bytes)", len(o.queue), o.bytes)
		}
		if !wait {
			return false, nil
		}
		if st := o.rt.cfg.SendTimeout; st > 0 && timeout == nil {
			t := time.NewTimer(st)
			defer t.Stop()
			timeout = t.C
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			o.mu.Lock()
			return false, errs.Wrap(errs.KindCanceled, ctx.Err(), "stopped waiting for outbox room")
		case <-timeout:
			o.mu.Lock()
			return false, errs.New(errs.KindExpired, "send timeout: the outbox stayed full")
		}
		o.mu.Lock()
		if o.closed {
			return false, errEndpointClosed()
		}
	}
	o.queue = append(o.queue, outboxItem{payload: append([]byte(nil), payload...), meta: meta})
	o.bytes += int64(len(payload))
	o.notifyLocked()
	return true, nil
}

// fullForLocked reports whether a body of n bytes finds no room now.
func (o *outbox) fullForLocked(n int) bool {
	return len(o.queue) >= o.rt.cfg.OutboxMessages || o.bytes+int64(n) > o.rt.cfg.OutboxBytes
}

// trySend is send that never waits: true once payload is written or in the
// outbox (or dropped by OutboxDrop, counted), with the peer's refusal when
// it stopped the stream as the bytes went; false — nothing done — when
// send would wait for stream credit, flow-control room or outbox room.
func (o *outbox) trySend(payload []byte) (bool, error) {
	conn, err := o.claim(len(payload))
	if err != nil {
		return false, err
	}
	if conn != nil {
		return sendNow(conn, payload)
	}
	defer o.mu.Unlock()
	return o.enqueueLocked(context.Background(), payload, TransferMeta{}, false)
}

// sendNow writes payload as a whole transfer on c if that needs no wait.
// A failure before any byte went reports false and no error, so the
// waiting path meets it again and reports it as Send would (a connection
// that just ended is then picked again). Once the bytes went it reports
// true, with the FIN's error if the peer stopped the stream meanwhile: the
// peer may have read and refused it, and it is not sent again. A connection
// that numbers its transfers is left to the waiting path: a number drawn
// for an attempt that reports false would be a gap.
func sendNow(c *transport.Conn, payload []byte) (bool, error) {
	if seqAgreed(c.Agreed().Guarantees) {
		return false, nil
	}
	h := wholeHeader(c, TransferMeta{}, len(payload))
	sent, err := c.SendNowUnwatched(&h, payload)
	if !sent {
		return false, nil
	}
	return true, err
}

func (o *outbox) notifyLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// flush writes queued bodies in order onto live connections.
func (o *outbox) flush() {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closed {
			changed := o.changed
			o.mu.Unlock()
			<-changed
			o.mu.Lock()
		}
		if o.closed {
			o.mu.Unlock()
			return
		}
		o.flushing = true
		item := o.queue[0]
		o.mu.Unlock()

		conn, err := o.d.live(o.d.ctx)
		o.mu.Lock()
		if err == nil {
			o.popLocked()
		}
		o.mu.Unlock()
		if err != nil {
			if o.d.ctx.Err() != nil {
				return
			}
			o.mu.Lock()
			// Every slot gave up: what is queued can never be written.
			o.dropped += uint64(len(o.queue))
			o.queue, o.bytes = nil, 0
			o.flushing = false
			o.notifyLocked()
			o.mu.Unlock()
			continue
		}
		if werr := writeWhole(o.d.ctx, conn, item.payload, item.meta); werr != nil {
			o.mu.Lock()
			o.dropped++
			o.mu.Unlock()
		}
		o.mu.Lock()
		o.flushing = false
		o.notifyLocked()
		o.mu.Unlock()
	}
}

func (o *outbox) popLocked() {
	o.bytes -= int64(len(o.queue[0].payload))
	o.queue[0] = outboxItem{}
	o.queue = o.queue[1:]
	o.notifyLocked()
}

// pending counts bodies not yet written (drain reports them outstanding).
func (o *outbox) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.queue)
	if o.flushing {
		n++
	}
	return n
}

// droppedCount is the number of bodies dropped by policy or lost unwritten.
func (o *outbox) droppedCount() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dropped
}

// close stops the flusher; queued bodies are abandoned.
func (o *outbox) close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.closed = true
	o.notifyLocked()
	o.mu.Unlock()
	o.rt.mu.Lock()
	delete(o.rt.outboxes, o)
	o.rt.mu.Unlock()
}

// wait waits for the flusher to end (after close and the dialer's close).
func (o *outbox) wait() { o.wg.Wait() }

// writeWhole writes one whole payload as a one-way transfer and finishes
// it. Nothing it writes hands out a receipt (Send, a Pair's Send, the
// outbox's flush), so none is tracked, as for a publisher's copies: its
// packets cost the receipt tracker nothing, and a drain or a release still
// waits for the peer to consume the stream (transport.OpenUniUnwatched). A
// small payload goes out at once when nothing has to wait, with no state
// kept (SendNowUnwatched), unless the connection numbers its transfers:
// a number is drawn only once the stream is in hand (numberOpened), so a
// send that fails first (its context ending while it waits for stream
// credit, a header the peer would refuse) leaves no gap in the sequence.
func writeWhole(ctx context.Context, c *transport.Conn, payload []byte, meta TransferMeta) error {
	h := wholeHeader(c, meta, len(payload))
	numbered := seqAgreed(c.Agreed().Guarantees)
	if !numbered {
		if sent, err := c.SendNowUnwatched(&h, payload); err != nil || sent {
			return err
		}
	}
	out, err := c.OpenUniUnwatched(ctx, &h)
	if err != nil {
		return err
	}
	if numbered {
		if err := numberOpened(c, out, &h); err != nil {
			return err
		}
	}
	sent, err := out.TryWrite(payload)
	if err != nil {
		return err
	}
	if !sent {
		// A write that may wait (for flow-control room, or a unix socket's
		// room for the FIN) is abandoned when ctx ends first; once the FIN
		// is queued, ctx ending resets nothing: the message went out whole.
		if ctx.Done() != nil { // a context that cannot end needs no watcher
			stop := context.AfterFunc(ctx, out.CancelUnfinished)
			defer stop()
		}
		if _, err := out.Write(payload); err != nil {
			return err
		}
	}
	_, err = out.Finish()
	if f := faults.WholeFinished.Load(); f != nil && !sent {
		(*f)(payload)
	}
	return err
}

// wholeHeader is the DATA header of a whole n-byte payload sent with meta
// on c's dialled path.
func wholeHeader(c *transport.Conn, meta TransferMeta, n int) wire.Data {
	var h wire.Data
	meta = meta.whole(n)
	meta.writeHeader(&h, c.Path())
	return h
}
