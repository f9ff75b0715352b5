package weida

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// FanOut is one streamed publication (SEMANTICS.md §2.3, "Streamed
// fan-out"): a payload of any size written in chunks to the subscribers
// that matched at Open, one stream per subscriber. Each copy is written by
// its own goroutine, so a slow subscriber never stalls the others; the
// subscriber budget (8 MiB) bounds one chunk, not the payload. The unit of
// loss is the whole transfer: a subscriber that cannot keep up loses its
// copy, which is reset (CANCELED, never read as complete) and counted in
// the publisher's drops. The write methods and Finish are for one
// goroutine; Cancel may be called from any.
type FanOut struct {
	p      *Publisher
	topic  string
	copies []*fanoutCopy

	mu    sync.Mutex
	state fanoutState
}

type fanoutState int

const (
	fanoutOpen fanoutState = iota
	fanoutFinished
	fanoutCanceled
)

// Topic is the topic every copy carries.
func (f *FanOut) Topic() string { return f.topic }

// Subscribers is the number of copies still intact.
func (f *FanOut) Subscribers() int {
	n := 0
	for _, cp := range f.copies {
		if !cp.isLost() {
			n++
		}
	}
	return n
}

// WriteWithin writes chunk to every remaining copy. A subscriber without
// room for it is waited for, up to limit in total for the call; when the
// limit passes, that subscriber's copy is dropped and the others go on. It
// returns the copies left. limit is mandatory and must be positive. If ctx
// ends while waiting, the whole fan-out is canceled (some copies would miss
// the chunk) and the error is Canceled.
func (f *FanOut) WriteWithin(ctx context.Context, chunk []byte, limit time.Duration) (int, error) {
	if limit <= 0 {
		return 0, errs.New(errs.KindRuntime, "write_within: the limit must be a positive duration, not %v", limit)
	}
	wait, stop := context.WithTimeout(ctx, limit)
	defer stop()
	return f.write(ctx, chunk, wait)
}

// WriteNow writes chunk to every remaining copy without waiting: a
// subscriber without room for it now loses the whole transfer. It returns
// the copies left.
func (f *FanOut) WriteNow(chunk []byte) (int, error) {
	return f.write(context.Background(), chunk, nil)
}

// write offers chunk to every copy; wait bounds the wait for room (nil:
// none), ctx is the caller's.
func (f *FanOut) write(ctx context.Context, chunk []byte, wait context.Context) (int, error) {
	if err := f.usable(); err != nil {
		return 0, err
	}
	if int64(len(chunk)) > f.p.budget {
		return 0, errs.New(errs.KindLimitExceeded, "fan-out: a chunk of %d bytes exceeds the subscriber budget of %d bytes; write smaller chunks", len(chunk), f.p.budget)
	}
	if len(chunk) == 0 {
		return f.Subscribers(), nil
	}
	var shared []byte // one copy of the chunk for every subscriber, made at the first live one
	for _, cp := range f.copies {
		if cp.isLost() {
			continue
		}
		if shared == nil {
			shared = bytes.Clone(chunk)
		}
		if err := cp.offer(ctx, shared, wait); err != nil {
			f.Cancel()
			return 0, err
		}
	}
	if err := f.usable(); err != nil {
		return 0, err // canceled meanwhile
	}
	return f.Subscribers(), nil
}

// Finish ends every remaining copy with a FIN once its chunks are written
// and returns how many subscribers got all of it, as far as the sender can
// tell now: a copy whose connection fails while its last chunks are still
// being written is counted later, in the publisher's drops. It does not wait.
func (f *FanOut) Finish() (int, error) {
	f.mu.Lock()
	if f.state != fanoutOpen {
		f.mu.Unlock()
		return 0, f.spent(f.state)
	}
	f.state = fanoutFinished
	f.mu.Unlock()
	n := 0
	for _, cp := range f.copies {
		if cp.finish() {
			n++
		}
	}
	return n, nil
}

// Cancel resets every copy (CANCELED); subscribers never see a partial
// payload as whole. After Finish it does nothing.
func (f *FanOut) Cancel() {
	f.mu.Lock()
	if f.state != fanoutOpen {
		f.mu.Unlock()
		return
	}
	f.state = fanoutCanceled
	f.mu.Unlock()
	for _, cp := range f.copies {
		cp.abort()
	}
}

func (f *FanOut) usable() error {
	f.mu.Lock()
	state := f.state
	f.mu.Unlock()
	if state != fanoutOpen {
		return f.spent(state)
	}
	f.p.mu.Lock()
	defer f.p.mu.Unlock()
	if f.p.closed {
		return errPublisherClosed()
	}
	return nil
}

func (f *FanOut) spent(s fanoutState) error {
	if s == fanoutCanceled {
		return errs.New(errs.KindNoReply, "the fan-out was canceled")
	}
	return errs.New(errs.KindNoReply, "the fan-out was finished")
}

// fanoutCopy is one subscriber's stream of a FanOut. Its chunks hold bytes
// of the subscriber's budget (its copyWriter's account) from the moment
// they are queued until they are written or discarded.
type fanoutCopy struct {
	f      *FanOut
	conn   *transport.Conn
	w      *copyWriter
	header wire.Data
	ctx    context.Context // ends when the copy is lost: stops the open and the wait
	cancel context.CancelFunc
	done   chan struct{} // closed when run returned

	mu       sync.Mutex
	pending  [][]byte
	wake     chan struct{}
	out      *transport.OutStream // nil until opened
	finished bool                 // FIN after the pending chunks
	lost     bool                 // dropped, failed or aborted: nothing more is written
}

func newFanoutCopy(f *FanOut, c *transport.Conn, w *copyWriter, h wire.Data) *fanoutCopy {
	ctx, cancel := context.WithCancel(context.Background())
	return &fanoutCopy{f: f, conn: c, w: w, header: h, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// offer reserves budget for chunk and queues it. Without room it waits for
// some while wait lasts (nil: not at all), then drops the copy. Only the
// caller's ctx ending is an error.
func (cp *fanoutCopy) offer(ctx context.Context, chunk []byte, wait context.Context) error {
	n := int64(len(chunk))
	for {
		cause, freed := cp.w.reserve(n)
		switch {
		case cause == DropNone:
			if !cp.push(chunk) {
				cp.w.unreserve(n)
			}
			return nil
		case cause == DropWire || wait == nil:
			cp.drop(cause)
			return nil
		}
		select {
		case <-freed:
		case <-cp.done:
			return nil // the copy failed on its own
		case <-wait.Done():
			if ctx.Err() != nil {
				return errs.Wrap(errs.KindCanceled, ctx.Err(), "fan-out write abandoned")
			}
			cp.drop(DropSubscriberBudget)
			return nil
		}
	}
}

// push queues a reserved chunk; false when the copy is lost or finished.
func (cp *fanoutCopy) push(chunk []byte) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.lost || cp.finished {
		return false
	}
	cp.pending = append(cp.pending, chunk)
	cp.signal()
	return true
}

// finish asks for the FIN; false when the copy is already lost.
func (cp *fanoutCopy) finish() bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.lost {
		return false
	}
	cp.finished = true
	cp.signal()
	return true
}

func (cp *fanoutCopy) signal() {
	select {
	case cp.wake <- struct{}{}:
	default:
	}
}

func (cp *fanoutCopy) isLost() bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.lost
}

// drop loses the copy for cause and counts it.
func (cp *fanoutCopy) drop(cause DropCause) {
	if cp.lose() {
		cp.f.p.drops.count(cp.f.topic, cause)
	}
}

// abort loses the copy without counting it (Cancel, Publisher.Close).
func (cp *fanoutCopy) abort() { cp.lose() }

// lose marks the copy lost and resets its stream (CANCELED), unblocking a
// write in progress; false when it was already lost.
func (cp *fanoutCopy) lose() bool {
	cp.mu.Lock()
	if cp.lost {
		cp.mu.Unlock()
		return false
	}
	cp.lost = true
	out := cp.out
	cp.mu.Unlock()
	cp.cancel()
	if out != nil {
		out.Cancel()
	}
	return true
}

// run opens the copy's stream and writes its chunks in order, then the FIN.
func (cp *fanoutCopy) run() {
	defer close(cp.done)
	defer cp.f.p.copyEnded(cp)
	defer cp.discard()
	defer cp.cancel()
	out, err := cp.conn.OpenUniUnwatched(cp.ctx, &cp.header) // a copy hands out no receipt
	if err != nil {
		cp.drop(DropWire)
		return
	}
	cp.mu.Lock()
	lost := cp.lost
	if !lost {
		cp.out = out
	}
	cp.mu.Unlock()
	if lost {
		out.Cancel()
		return
	}
	for {
		chunk, fin, ok := cp.next()
		switch {
		case !ok:
			return
		case fin:
			if _, err := out.Finish(); err != nil {
				cp.drop(DropWire)
			}
			return
		}
		_, err := out.Write(chunk)
		cp.w.unreserve(int64(len(chunk)))
		if err != nil {
			cp.drop(DropWire)
			return
		}
	}
}

// next waits for the next chunk (ok), the FIN (fin), or the copy's loss.
func (cp *fanoutCopy) next() (chunk []byte, fin, ok bool) {
	for {
		cp.mu.Lock()
		switch {
		case cp.lost:
			cp.mu.Unlock()
			return nil, false, false
		case len(cp.pending) > 0:
			chunk = cp.pending[0]
			cp.pending[0] = nil
			cp.pending = cp.pending[1:]
			cp.mu.Unlock()
			return chunk, false, true
		case cp.finished:
			cp.mu.Unlock()
			return nil, true, true
		}
		cp.mu.Unlock()
		select {
		case <-cp.wake:
		case <-cp.ctx.Done():
		case <-cp.conn.Done():
			cp.drop(DropWire)
		}
	}
}

// discard gives back the budget of chunks that will never be written.
func (cp *fanoutCopy) discard() {
	cp.mu.Lock()
	pending := cp.pending
	cp.pending = nil
	cp.mu.Unlock()
	var n int64
	for _, chunk := range pending {
		n += int64(len(chunk))
	}
	if n > 0 {
		cp.w.unreserve(n)
	}
}
