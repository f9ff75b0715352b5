package broker

import (
	"sync"
	"sync/atomic"
)

// The buffers admissions read bodies through. Every admission in progress
// stages its body through one, and only QUIC's stream credit bounds how
// many run at once (2048 uni + 1024 bidi streams per connection, ~192 MiB
// of 64 KiB buffers), so a queue lends at most lendableChunks(QueueBytes)
// full buffers — its staging memory stays within QueueBytes — and an
// admission that finds none free reads through a small one instead,
// swapping it for a full one as soon as one is free.
//
// It never waits for a buffer. An admission that waited would leave its
// stream's bytes unread, and those count against the connection's receive
// window, which all its streams share: enough waiting streams on one
// connection fill the window and starve the very admissions that hold the
// buffers, which then never finish (a 128-buffer semaphore stalled 300
// concurrent 1 MiB exchanges on one connection for good). Reading slower
// is always safe; waiting is not.
const (
	// readChunk is the full buffer, the unit a body is read and charged
	// in when the queue can lend one.
	readChunk = 64 << 10
	// smallChunk is the buffer of an admission beyond the lendable ones:
	// about a goroutine's stack, which each admission costs anyway.
	smallChunk = 4 << 10
)

var (
	chunkPool      = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}
	smallChunkPool = sync.Pool{New: func() any { b := make([]byte, smallChunk); return &b }}
)

// lendableChunks is how many full buffers a queue of queueBytes lends at
// once: as many as fit in its bound, and at least one.
func lendableChunks(queueBytes int64) int64 { return max(1, queueBytes/readChunk) }

// readBuffers is one queue's lender of full buffers. Its counts are for
// tests and reading, never for a decision beyond the lending itself.
type readBuffers struct {
	limit     int64         // full buffers lendable at once
	lent      atomic.Int64  // full buffers out now
	peak      atomic.Int64  // the most ever out at once
	small     atomic.Uint64 // admissions that started on a small buffer
	upgrades  atomic.Uint64 // small buffers swapped for a full one
	onAcquire func()        // test seam: called as each admission gets its first buffer
}

// tryLend takes a full buffer when fewer than limit are out.
func (r *readBuffers) tryLend() (*[]byte, bool) {
	for {
		n := r.lent.Load()
		if n >= r.limit {
			return nil, false
		}
		if r.lent.CompareAndSwap(n, n+1) {
			r.raisePeak(n + 1)
			return chunkPool.Get().(*[]byte), true
		}
	}
}

// raisePeak records out full buffers out at once, when it is a new high.
func (r *readBuffers) raisePeak(out int64) {
	for {
		p := r.peak.Load()
		if out <= p || r.peak.CompareAndSwap(p, out) {
			return
		}
	}
}

// get is the buffer an admission starts with: a full one when one is
// free, a small one otherwise. It never waits.
func (r *readBuffers) get() readBuffer {
	b := readBuffer{from: r}
	if bp, ok := r.tryLend(); ok {
		b.bp, b.full = bp, true
	} else {
		b.bp = smallChunkPool.Get().(*[]byte)
		r.small.Add(1)
	}
	if r.onAcquire != nil {
		r.onAcquire()
	}
	return b
}

// readBuffer is the buffer one admission reads through now.
type readBuffer struct {
	from *readBuffers
	bp   *[]byte
	full bool
}

// bytes is the buffer to read into.
func (b *readBuffer) bytes() []byte { return *b.bp }

// upgrade swaps a small buffer for a full one once one is free, so the
// late comers of a burst regain full-size reads when it passes.
func (b *readBuffer) upgrade() {
	if b.full {
		return
	}
	if bp, ok := b.from.tryLend(); ok {
		smallChunkPool.Put(b.bp)
		b.bp, b.full = bp, true
		b.from.upgrades.Add(1)
	}
}

// release gives the buffer back.
func (b *readBuffer) release() {
	if b.full {
		chunkPool.Put(b.bp)
		b.from.lent.Add(-1)
	} else {
		smallChunkPool.Put(b.bp)
	}
	b.bp = nil
}
