package store

import (
	"crypto/sha256"
	"hash"
	"io"
	"sync"

	"github.com/weida-go/weida/core/errs"
)

// Body is a message body being received: an io.Writer that hashes as it
// goes and streams into a temp file under payload/tmp, so no body is ever
// held whole in memory. A body that fits in the write buffer (bodyBufSize)
// never touches tmp: Admit puts it inline in its journal record when it is
// at most MaxInlineBodyBytes, and otherwise writes it straight to its
// payload file, which saves a create and a rename. Hand a Body to
// Queue.Admit, or Abort it.
type Body struct {
	q    *Queue
	buf  *[]byte   // pooled; the whole body while it fits, then a write batch
	f    File      // temp file, created when the body outgrows buf
	path string    // f's path
	out  io.Writer // f, or what a test wrapped around it
	// wrapOut, set only by tests, wraps f when it is created (a failing disk).
	wrapOut func(io.Writer) io.Writer
	h       hash.Hash
	n       uint64
	err     error // first write failure; the body is unusable after it
	// done is set by Admit and Abort.
	done bool
}

// bodyBufSize bounds the memory of a body in flight, and batches the small
// reads a network stream tends to deliver into fewer write(2) calls.
const bodyBufSize = 32 << 10

var bodyBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, bodyBufSize)
	return &b
}}

// NewBody starts an empty body. It touches no file until the body
// outgrows its buffer.
func (q *Queue) NewBody() (*Body, error) {
	if q.isClosed() {
		return nil, errClosed
	}
	return &Body{q: q, buf: bodyBufs.Get().(*[]byte), h: sha256.New()}, nil
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
	b.h.Write(p)
	b.n += uint64(len(p))
	buf := *b.buf
	if len(buf)+len(p) <= cap(buf) {
		*b.buf = append(buf, p...)
		return len(p), nil
	}
	if err := b.drain(); err != nil {
		return 0, err
	}
	if len(p) < cap(buf) {
		*b.buf = append((*b.buf)[:0], p...)
		return len(p), nil
	}
	if _, err := b.out.Write(p); err != nil {
		return 0, b.fail(err)
	}
	return len(p), nil
}

// drain writes the buffered bytes to the temp file, creating it first.
func (b *Body) drain() error {
	if b.out == nil {
		f, path, err := createTemp(b.q.s.fs, b.q.s.payloads.tmp, "body-")
		if err != nil {
			b.err = ioError("creating temp file for a body in", b.q.s.payloads.tmp, err)
			return b.err
		}
		b.f, b.path, b.out = f, path, io.Writer(f)
		if b.wrapOut != nil {
			b.out = b.wrapOut(f)
		}
	}
	_, err := b.out.Write(*b.buf)
	*b.buf = (*b.buf)[:0]
	if err != nil {
		return b.fail(err)
	}
	return nil
}

func (b *Body) fail(err error) error {
	b.err = ioError("writing body to", b.path, err)
	return b.err
}

// Len is the number of bytes written so far.
func (b *Body) Len() uint64 { return b.n }

// Abort discards the body and removes its temp file. It is idempotent and a
// no-op after Admit.
func (b *Body) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.releaseBuf()
	if b.f != nil {
		b.f.Close()
		b.q.s.fs.Remove(b.path)
	}
}

// finished is a body ready to become a payload: either still in memory
// (small) or a closed temp file.
type finished struct {
	digest   [32]byte
	inMemory bool
	small    []byte // the whole body when inMemory
	tmp      string // the temp file otherwise
}

// finish completes the body: a small one stays in its buffer; a large one
// is flushed, fsynced when flushed, and closed. On error the body is
// aborted. The caller calls releaseBuf once it is done with small.
func (b *Body) finish(flushed bool) (finished, error) {
	if b.done {
		return finished{}, errs.New(errs.KindRuntime, "store: body already admitted or aborted")
	}
	var fin finished
	b.h.Sum(fin.digest[:0])
	err := b.err
	if err == nil && b.out == nil {
		b.done = true
		fin.inMemory, fin.small = true, *b.buf
		return fin, nil
	}
	if err == nil {
		err = b.drain()
	}
	if err == nil && flushed {
		if serr := b.f.Sync(); serr != nil {
			err = ioError("fsync of body", b.path, serr)
		}
	}
	if err == nil {
		if cerr := b.f.Close(); cerr != nil {
			err = ioError("closing body", b.path, cerr)
		}
	}
	if err != nil {
		b.Abort()
		return finished{}, err
	}
	b.done = true
	b.releaseBuf()
	fin.tmp = b.path
	return fin, nil
}

func (b *Body) releaseBuf() {
	if b.buf != nil {
		*b.buf = (*b.buf)[:0]
		bodyBufs.Put(b.buf)
		b.buf = nil
	}
}
