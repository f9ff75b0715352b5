package weida

import (
	"io"
	"math"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// collectScratch holds the first 64 KiB of a collect, so a small message
// costs one exact-size copy, not a fresh 64 KiB buffer.
var collectScratch = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// collectSizedMin is the smallest advisory length collect sizes its buffer
// by; below it the scratch path costs one small copy.
const collectSizedMin = 16 << 10

// collectSizedMax bounds the buffer an advisory length sizes before any of
// its bytes arrived: the length is the sender's word, and a ceiling may be
// "no ceiling", so a peer stating a huge length must not make the receiver
// allocate it (or, past what the runtime can allocate, crash it). A longer
// payload grows from there by doubling as its bytes arrive.
const collectSizedMax = 4 << 20

// advisedRoom is the room for a payload whose sender stated its length n:
// one byte more, so the FIN ends the read and a longer payload shows at
// once; never more than collectSizedMax (plus that byte).
func advisedRoom(n uint64) int64 { return int64(min(n, collectSizedMax)) + 1 }

// collect reads in to EOF under a ceiling, refusing the stream above it.
// A payload already whole in hand is taken as it is; one whose sender
// stated its length (DATA key 1) within the ceiling is read into one buffer
// of that size (up to collectSizedMax, then doubling); any other into the
// scratch, then a buffer that doubles as the bytes arrive. A wrong advisory
// length costs nothing but the buffer it sized, which the ceiling and
// collectSizedMax bound.
func collect(in *transport.InStream, maxBytes int64) ([]byte, error) {
	if maxBytes < 0 {
		return nil, errs.New(errs.KindRuntime, "collect: the ceiling must not be negative")
	}
	if body, ok := in.TakeWhole(maxBytes); ok {
		return body, nil
	}
	if cl := in.Header.ContentLen; cl.Ok && cl.V >= collectSizedMin && cl.V <= uint64(maxBytes) {
		return collectGrow(in, make([]byte, 0, advisedRoom(cl.V)), 0, maxBytes)
	}
	sp := collectScratch.Get().(*[]byte)
	defer collectScratch.Put(sp)
	scratch := (*sp)[:min(int64(len(*sp)), satAdd(maxBytes, 1))]
	n, err := io.ReadFull(in, scratch)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return append(make([]byte, 0, n), scratch[:n]...), nil
	case err != nil:
		return nil, err
	}
	return collectGrow(in, append(make([]byte, 0, 2*n), scratch[:n]...), 0, maxBytes)
}

// collectAppendMin is the room collectAppend makes behind dst for a
// payload of unstated length before it reads.
const collectAppendMin = 4 << 10

// collectAppend is collect appending the payload to dst, the caller's
// buffer: once dst has the room, a receive allocates nothing. Its room is
// grown only to the sender's advisory length (within the ceiling and
// collectSizedMax) or by doubling as the bytes arrive. A nil dst is collect. On failure it returns nil; dst's bytes
// past its length may have been written.
func collectAppend(in *transport.InStream, dst []byte, maxBytes int64) ([]byte, error) {
	if dst == nil {
		return collect(in, maxBytes)
	}
	if maxBytes < 0 {
		return nil, errs.New(errs.KindRuntime, "collect: the ceiling must not be negative")
	}
	if body, ok := in.AppendWhole(dst, maxBytes); ok {
		return body, nil
	}
	room := min(int64(collectAppendMin), satAdd(maxBytes, 1))
	if cl := in.Header.ContentLen; cl.Ok && cl.V <= uint64(maxBytes) {
		room = advisedRoom(cl.V)
	}
	return collectGrow(in, growRoom(dst, room), len(dst), maxBytes)
}

// growRoom returns buf with room for at least n bytes past its length, in
// one allocation when it has less.
func growRoom(buf []byte, n int64) []byte {
	if int64(cap(buf)-len(buf)) >= n {
		return buf
	}
	grown := make([]byte, len(buf), int64(len(buf))+n)
	copy(grown, buf)
	return grown
}

// collectGrow goes on reading after buf, whose bytes from base on are the
// payload's start, into its room and, once that is full, a buffer that
// doubles, never past the ceiling plus one byte; above the ceiling it
// refuses the stream.
func collectGrow(in *transport.InStream, buf []byte, base int, maxBytes int64) ([]byte, error) {
	end := satAdd(int64(base), satAdd(maxBytes, 1)) // the ceiling plus the byte that shows a payload above it
	for int64(len(buf)) < end {
		if len(buf) == cap(buf) {
			// Double (append grows large slices by only ~1.25×, which
			// copies a 1 MiB payload about four times over).
			buf = growRoom(buf, min(int64(max(cap(buf)-base, collectAppendMin)), end-int64(len(buf))))
		}
		m, err := in.Read(buf[len(buf):min(int64(cap(buf)), end)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) == end {
		in.Refuse(wire.CodeRejected)
		return nil, errs.New(errs.KindLimitExceeded, "the payload exceeds the ceiling of %d bytes and was refused", maxBytes)
	}
	return buf, nil
}

// satAdd is a+b for non-negative a and b, saturating at math.MaxInt64 (a
// ceiling may be "no ceiling").
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// takeWhole is InStream.TakeWhole, or AppendWhole to dst when the caller
// lent a buffer.
func takeWhole(in *transport.InStream, dst []byte, maxBytes int64) ([]byte, bool) {
	if dst == nil {
		return in.TakeWhole(maxBytes)
	}
	return in.AppendWhole(dst, maxBytes)
}
