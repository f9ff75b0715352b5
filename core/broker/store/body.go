package store

import (
	"bufio"
	"crypto/sha256"
	"hash"
	"io"
	"os"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// Body is a message body being received: an io.Writer that streams into a
// temp file under payload/tmp while hashing, so no body is ever held whole in
// memory. Hand it to Queue.Admit, or Abort it.
type Body struct {
	q    *Queue
	f    *os.File
	w    *bufio.Writer // buffers small writes; large ones pass straight through
	h    hash.Hash
	n    uint64
	err  error // first write failure; the body is unusable after it
	done bool  // admitted or aborted
}

// bodyBufSize batches the small reads a network stream tends to deliver into
// fewer write(2) calls.
const bodyBufSize = 64 << 10

var bodyBufs = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bodyBufSize) }}

// NewBody starts a body in a new temp file under payload/tmp.
func (q *Queue) NewBody() (*Body, error) {
	f, err := os.CreateTemp(q.s.payloads.tmp, "body-*")
	if err != nil {
		return nil, ioError("creating temp file for a body in", q.s.payloads.tmp, err)
	}
	w := bodyBufs.Get().(*bufio.Writer)
	w.Reset(f)
	return &Body{q: q, f: f, w: w, h: sha256.New()}, nil
}

// Write appends p to the body. A failure (disk full, EIO) is an Io error
// naming the temp file, and every later Write and Admit returns it.
func (b *Body) Write(p []byte) (int, error) {
	if b.done {
		return 0, errs.New(errs.KindRuntime, "store: write to a body already admitted or aborted")
	}
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.w.Write(p)
	b.h.Write(p[:n])
	b.n += uint64(n)
	if err != nil {
		b.err = ioError("writing body to", b.f.Name(), err)
		return n, b.err
	}
	return n, nil
}

// Len is the number of bytes written so far.
func (b *Body) Len() uint64 { return b.n }

// Abort removes the temp file. It is idempotent and a no-op after Admit.
func (b *Body) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.releaseBuf()
	b.f.Close()
	os.Remove(b.f.Name())
}

// finish flushes and closes the temp file, fsyncing it first when flushed,
// and returns its digest. On error the body is aborted.
func (b *Body) finish(flushed bool) ([32]byte, error) {
	var d [32]byte
	if b.done {
		return d, errs.New(errs.KindRuntime, "store: body already admitted or aborted")
	}
	err := b.err
	if err == nil {
		if ferr := b.w.Flush(); ferr != nil {
			err = ioError("writing body to", b.f.Name(), ferr)
		}
	}
	if err == nil && flushed {
		if serr := b.f.Sync(); serr != nil {
			err = ioError("fsync of body", b.f.Name(), serr)
		}
	}
	if err == nil {
		if cerr := b.f.Close(); cerr != nil {
			err = ioError("closing body", b.f.Name(), cerr)
		}
	}
	if err != nil {
		b.Abort()
		return d, err
	}
	b.done = true
	b.releaseBuf()
	b.h.Sum(d[:0])
	return d, nil
}

func (b *Body) releaseBuf() {
	if b.w != nil {
		b.w.Reset(nil)
		bodyBufs.Put(b.w)
		b.w = nil
	}
}

// setSink replaces where the body's bytes go (tests: a failing writer).
func (b *Body) setSink(w io.Writer) { b.w.Reset(w) }
