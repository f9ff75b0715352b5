package weida

import (
	"bytes"
	"context"
	"sync"

	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// DropCause says why a fan-out copy was dropped.
type DropCause int

// Drop causes (SEMANTICS.md §2.3 "Counting").
const (
	DropNone             DropCause = iota
	DropSubscriberBudget           // the copy did not fit the peer's byte budget
	DropSubscriberQueue            // the peer's queue of copies was full
	DropNoParked                   // no parked reverse connection (socket transports)
	DropWire                       // the write failed (the peer's connection ended)
)

// DefaultSubscriberBufferBytes is the payload bytes queued per subscriber
// (or bus member) before a copy is dropped.
const DefaultSubscriberBufferBytes = 8 << 20

// copyWriter writes whole-payload copies to one peer, in order, one uni
// stream per copy, from its own goroutine, so a slow peer never stalls the
// sender (fan-out is Drop, never Block). Its queue is bounded in count
// (endpoint_queue) and in payload bytes (subscriber_buffer_bytes); a copy
// that does not fit is dropped on arrival (drop-new), never a queued one.
// Payload slices are shared between the copies of one message and never
// written to. A copy hands out no receipt, so none is tracked
// (OpenUniUnwatched): a drain waits for the peer to consume it with every
// other stream, and counts the copies still queued.
//
// Streamed fan-out copies (fanout.go) are written by their own goroutines
// but draw on the same byte budget through reserve and unreserve, so one
// peer never holds more than maxBytes of queued payload in total.
type copyWriter struct {
	conn     *transport.Conn
	maxQueue int
	maxBytes int64
	onDrop   func(topic string, cause DropCause) // called for drops at the wire

	mu     sync.Mutex
	queue  []copyItem
	bytes  int64
	freed  chan struct{} // made on demand by reserve; closed when bytes are released
	wake   chan struct{}
	busy   bool          // a popped copy is being written
	idle   chan struct{} // closed and replaced each time a write ends
	closed bool
	done   chan struct{}
	rt     *Runtime
}

type copyItem struct {
	header  wire.Data
	payload []byte
}

// sharedPayload is one message's payload for all its copies. A copy sent
// at once is written from the caller's slice (quic-go copies the bytes);
// the first copy that has to queue takes a copy of it, which every later
// queued copy shares, as the caller may reuse its slice once the call
// returns. A message whose copies all went out at once is never copied.
type sharedPayload struct {
	src, kept []byte
	isKept    bool
}

// keep returns the payload's own copy, made on first use.
func (p *sharedPayload) keep() []byte {
	if !p.isKept {
		p.kept, p.isKept = bytes.Clone(p.src), true
	}
	return p.kept
}

func newCopyWriter(rt *Runtime, conn *transport.Conn, maxQueue int, maxBytes int64, onDrop func(string, DropCause)) *copyWriter {
	w := &copyWriter{conn: conn, maxQueue: maxQueue, maxBytes: maxBytes, onDrop: onDrop,
		wake: make(chan struct{}, 1), idle: make(chan struct{}), done: make(chan struct{}), rt: rt}
	rt.mu.Lock()
	rt.writers[w] = struct{}{}
	rt.mu.Unlock()
	go w.run()
	return w
}

// awaitIdle waits until every queued copy was written (Drain flushes
// publishers and bus members before it waits for receipts), the writer
// ended, or ctx ended; it returns how many copies were still queued then.
func (w *copyWriter) awaitIdle(ctx context.Context) int {
	for {
		w.mu.Lock()
		pending, idle := len(w.queue), w.idle
		if w.busy {
			pending++
		}
		w.mu.Unlock()
		if pending == 0 {
			return 0
		}
		select {
		case <-idle:
		case <-w.done:
			return 0
		case <-ctx.Done():
			return pending
		}
	}
}

// offer sends or queues a copy, or says why it was dropped. It never blocks. The
// copy is numbered first, when the connection agreed on sequencing, so a
// dropped copy leaves a hole its peer sees as missed (sequence.go); under
// the lock, so numbers follow the queue's order.
func (w *copyWriter) offer(h wire.Data, p *sharedPayload) DropCause {
	w.mu.Lock()
	defer w.mu.Unlock()
	seqNumber(w.conn, &h)
	switch {
	case w.closed:
		return DropWire
	case len(w.queue) >= w.maxQueue:
		return DropSubscriberQueue
	case w.bytes+int64(len(p.src)) > w.maxBytes:
		return DropSubscriberBudget
	case len(w.queue) == 0 && !w.busy:
		// Nothing is ahead of this copy: it goes out from here when that
		// needs no wait, without waking the writer goroutine (and, when it
		// cannot, queues with the number it already drew). A failure is a
		// drop at the wire, as the writer counts one: the connection ended,
		// the header is one the peer would refuse, or the peer stopped the
		// copy as it went and must not get it again.
		sent, err := w.conn.SendNowUnwatched(&h, p.src)
		if err != nil {
			return DropWire
		}
		if sent {
			return DropNone
		}
	}
	payload := p.keep()
	w.queue = append(w.queue, copyItem{header: h, payload: payload})
	w.bytes += int64(len(payload))
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return DropNone
}

func (w *copyWriter) run() {
	defer func() {
		w.rt.mu.Lock()
		delete(w.rt.writers, w)
		w.rt.mu.Unlock()
		close(w.done)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-w.conn.Done():
			cancel()
		case <-w.done:
		}
	}()
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed {
			w.mu.Unlock()
			select {
			case <-w.wake:
			case <-ctx.Done():
				w.close()
			}
			w.mu.Lock()
		}
		if w.closed {
			dropped := w.queue
			w.queue = nil
			var queued int64
			for _, it := range dropped {
				queued += int64(len(it.payload))
			}
			w.releaseLocked(queued) // streamed chunks are released by their owners
			w.mu.Unlock()
			for _, it := range dropped {
				w.drop(it)
			}
			return
		}
		it := w.queue[0]
		w.queue[0] = copyItem{}
		w.queue = w.queue[1:]
		w.busy = true
		w.mu.Unlock()

		err := w.write(ctx, it)

		w.unreserve(int64(len(it.payload)))
		if err != nil {
			w.drop(it)
		}
		w.mu.Lock()
		w.busy = false
		close(w.idle)
		w.idle = make(chan struct{})
		w.mu.Unlock()
	}
}

func (w *copyWriter) write(ctx context.Context, it copyItem) error {
	out, err := w.conn.OpenUniUnwatched(ctx, &it.header)
	if err != nil {
		return err
	}
	if _, err := out.Write(it.payload); err != nil {
		return err
	}
	_, err = out.Finish()
	return err
}

func (w *copyWriter) drop(it copyItem) {
	if w.onDrop != nil {
		w.onDrop(it.header.Topic.V, DropWire)
	}
}

// reserve takes n bytes of the budget for a streamed chunk. When they do
// not fit now it returns DropSubscriberBudget and a channel closed at the
// next release, to wait on; DropWire once the writer is closed.
func (w *copyWriter) reserve(n int64) (DropCause, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return DropWire, nil
	case w.bytes+n > w.maxBytes:
		if w.freed == nil {
			w.freed = make(chan struct{})
		}
		return DropSubscriberBudget, w.freed
	}
	w.bytes += n
	return DropNone, nil
}

// unreserve gives back n bytes once they were written or discarded.
func (w *copyWriter) unreserve(n int64) {
	w.mu.Lock()
	w.releaseLocked(n)
	w.mu.Unlock()
}

// releaseLocked lowers the byte count and wakes whoever waits for room.
func (w *copyWriter) releaseLocked(n int64) {
	w.bytes -= n
	if w.freed != nil {
		close(w.freed)
		w.freed = nil
	}
}

// close stops the writer; queued copies are dropped (counted at the wire).
func (w *copyWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.releaseLocked(0) // a waiting reserve learns the writer is gone
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
