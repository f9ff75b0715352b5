package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sync"
)

// verifyingReader reads a payload file for delivery and checks it against
// the message as it goes: it never returns more than the recorded length,
// and at the end it returns io.EOF only when the length and the SHA-256
// match. Otherwise the end is ErrPayloadCorrupt, so a caller copying the
// body into a transfer resets it instead of finishing it. A failing read
// is a PayloadError carrying the OS error (see IsTransient).
type verifyingReader struct {
	f    File
	m    Message // Seq, Digest and BodyLen only
	path string
	h    hash.Hash
	n    uint64
	err  error // sticky once the read ended
}

func newVerifyingReader(f File, m *Message, path string) *verifyingReader {
	return &verifyingReader{f: f, m: Message{Seq: m.Seq, Digest: m.Digest, BodyLen: m.BodyLen}, path: path, h: sha256.New()}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	// One byte past the recorded length is enough to see that the file
	// is too long without handing the caller any of it.
	if room := v.m.BodyLen - v.n + 1; uint64(len(p)) > room {
		p = p[:room]
	}
	n, err := v.f.Read(p)
	if v.n+uint64(n) > v.m.BodyLen {
		v.err = v.corrupt(fmt.Sprintf("file is longer than the recorded %d bytes", v.m.BodyLen))
		return 0, v.err
	}
	v.h.Write(p[:n])
	v.n += uint64(n)
	switch {
	case err == io.EOF:
		v.err = v.atEnd()
	case err != nil:
		v.err = payloadError(&v.m, v.path, err)
	}
	return n, v.err
}

// atEnd is io.EOF when what was read is the message's body.
func (v *verifyingReader) atEnd() error {
	if v.n != v.m.BodyLen {
		return v.corrupt(fmt.Sprintf("file ends at %d bytes, the journal says %d", v.n, v.m.BodyLen))
	}
	var sum [32]byte
	if v.h.Sum(sum[:0]); sum != v.m.Digest {
		return v.corrupt(fmt.Sprintf("its bytes hash to %x", sum))
	}
	return io.EOF
}

func (v *verifyingReader) corrupt(why string) error {
	return payloadError(&v.m, v.path, fmt.Errorf("%w: %s", ErrPayloadCorrupt, why))
}

func (v *verifyingReader) Close() error { return v.f.Close() }

// openPayload opens m's payload file for a verified read; a missing file
// is ErrPayloadMissing, any other failure keeps the OS error.
func openPayload(fsys FS, m *Message, path string) (io.ReadCloser, error) {
	f, err := openRead(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, payloadError(m, path, fmt.Errorf("%w: %v", ErrPayloadMissing, err))
	}
	if err != nil {
		return nil, payloadError(m, path, err)
	}
	return newVerifyingReader(f, m, path), nil
}

// hashBufs are recovery's read buffers: its memory per payload is one of
// them, whatever the payload's size.
var hashBufs = sync.Pool{New: func() any {
	b := make([]byte, 64<<10)
	return &b
}}

// checkPayload re-hashes a payload file as recovery step 4 requires. It
// returns "" when the file holds m's body, else what is wrong with it; err
// is a failure to read it at all.
func checkPayload(fsys FS, m *Message, path string) (problem string, err error) {
	rc, err := openPayload(fsys, m, path)
	if errors.Is(err, ErrPayloadMissing) {
		return "is missing", nil
	}
	if err != nil {
		return "", err
	}
	defer rc.Close()
	buf := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(buf)
	for {
		_, err := rc.Read(*buf)
		switch {
		case err == nil:
			continue
		case err == io.EOF:
			return "", nil
		case errors.Is(err, ErrPayloadCorrupt):
			var pe *PayloadError
			errors.As(err, &pe)
			return "does not match its ADMIT record (" + pe.Err.Error() + ")", nil
		default:
			return "", err
		}
	}
}
