package weida

import (
	"io"
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

// collect reads in to EOF under a ceiling, refusing the stream above it.
// A payload already whole in hand is taken as it is; one whose sender
// stated its length (DATA key 1) within the ceiling is read into one buffer
// of that size; any other into the scratch, then a buffer that doubles as
// the bytes arrive. A wrong advisory length costs nothing but the buffer it
// sized, which the ceiling bounds.
func collect(in *transport.InStream, maxBytes int64) ([]byte, error) {
	if maxBytes < 0 {
		return nil, errs.New(errs.KindRuntime, "collect: the ceiling must not be negative")
	}
	if body, ok := in.TakeWhole(maxBytes); ok {
		return body, nil
	}
	if cl := in.Header.ContentLen; cl.Ok && cl.V >= collectSizedMin && cl.V <= uint64(maxBytes) {
		// One byte more than stated, so the FIN ends the read and a longer
		// payload shows at once.
		buf := make([]byte, cl.V+1)
		n, err := io.ReadFull(in, buf)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return buf[:n], nil
		case err != nil:
			return nil, err
		}
		return collectGrow(in, buf, maxBytes)
	}
	sp := collectScratch.Get().(*[]byte)
	defer collectScratch.Put(sp)
	scratch := (*sp)[:min(int64(len(*sp)), maxBytes+1)]
	n, err := io.ReadFull(in, scratch)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return append(make([]byte, 0, n), scratch[:n]...), nil
	case err != nil:
		return nil, err
	}
	return collectGrow(in, append(make([]byte, 0, 2*n), scratch[:n]...), maxBytes)
}

// collectGrow goes on reading after buf, the payload's start, in a buffer
// that doubles as the bytes arrive, never past the ceiling plus one byte;
// above the ceiling it refuses the stream.
func collectGrow(in *transport.InStream, buf []byte, maxBytes int64) ([]byte, error) {
	for int64(len(buf)) <= maxBytes {
		if len(buf) == cap(buf) {
			// Double (append grows large slices by only ~1.25×, which
			// copies a 1 MiB payload about four times over).
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), maxBytes+1))
			copy(grown, buf)
			buf = grown
		}
		limit := min(int64(cap(buf)), maxBytes+1)
		m, err := in.Read(buf[len(buf):limit])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > maxBytes {
		in.Refuse(wire.CodeRejected)
		return nil, errs.New(errs.KindLimitExceeded, "the payload exceeds the ceiling of %d bytes and was refused", maxBytes)
	}
	return buf, nil
}
