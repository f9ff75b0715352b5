package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// countingReader counts Read calls and the bytes they returned.
type countingReader struct {
	r            io.Reader
	calls, bytes int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.calls++
	n, err := c.r.Read(p)
	c.bytes += n
	return n, err
}

// frameOf builds a DATA frame whose header is size opaque bytes:
// ReadHeader frames the header without decoding it.
func frameOf(size int) (frame, hdr []byte) {
	hdr = bytes.Repeat([]byte{0x61}, size)
	return AppendFrame(nil, KindData, rawHeader(hdr)), hdr
}

func TestReadHeaderReadsExactlyTheHeader(t *testing.T) {
	for _, v := range []struct {
		size, calls int
		preamble    []byte // a padded varint form, or nil for the shortest
	}{
		{0, 1, nil},   // preamble only: the empty header needs no read
		{5, 2, nil},   // 3 bytes, then the header
		{100, 3, nil}, // 3 bytes, the rest of a 2-byte varint, the header
		{5, 3, unhex(t, "57 01 C0 00 00 00 00 00 00 05")},
	} {
		frame, hdr := frameOf(v.size)
		if v.preamble != nil {
			frame = append(append([]byte(nil), v.preamble...), hdr...)
		}
		r := &countingReader{r: bytes.NewReader(append(frame, "PAYLOAD"...))}
		k, got, err := ReadHeader(r, DefaultMaxHeaderBytes, make([]byte, 0, 512))
		if err != nil || k != KindData || !bytes.Equal(got, hdr) {
			t.Fatalf("size %d: kind %v, header % X, %v", v.size, k, got, err)
		}
		if r.calls != v.calls || r.bytes != len(frame) {
			t.Errorf("size %d: %d reads of %d bytes, want %d reads of %d", v.size, r.calls, r.bytes, v.calls, len(frame))
		}
		if rest, _ := io.ReadAll(r); string(rest) != "PAYLOAD" {
			t.Errorf("size %d: the payload left is %q", v.size, rest)
		}
	}
}

func TestReadHeaderBuffer(t *testing.T) {
	frame, hdr := frameOf(300)
	buf := make([]byte, 0, 400)
	_, got, err := ReadHeader(bytes.NewReader(frame), DefaultMaxHeaderBytes, buf)
	if err != nil || &got[0] != &buf[:1][0] {
		t.Fatalf("a roomy buffer was not used: %v", err)
	}
	for _, small := range [][]byte{nil, make([]byte, 0, 4), make([]byte, 0, 299)} {
		_, got, err = ReadHeader(bytes.NewReader(frame), DefaultMaxHeaderBytes, small)
		if err != nil || !bytes.Equal(got, hdr) || cap(got) != len(hdr) {
			t.Fatalf("cap %d: got %d bytes (cap %d), %v", cap(small), len(got), cap(got), err)
		}
	}
}

func TestReadHeaderAllocatesNothingIntoRoomyBuffer(t *testing.T) {
	frame, _ := frameOf(200)
	r := bytes.NewReader(frame)
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() {
		r.Reset(frame)
		if _, _, err := ReadHeader(r, DefaultMaxHeaderBytes, buf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func TestReadHeaderStreamEndIsAViolation(t *testing.T) {
	frame, _ := frameOf(100) // 4-byte preamble
	for i := range len(frame) {
		_, _, err := ReadHeader(bytes.NewReader(frame[:i]), DefaultMaxHeaderBytes, nil)
		want := "stream ended inside the header"
		if i < 4 {
			want = "stream ended inside the preamble"
		}
		wantViolation(t, err, want)
	}
}

func TestReadHeaderRejectsBeforeReadingOn(t *testing.T) {
	r := &countingReader{r: bytes.NewReader(unhex(t, "57 01 80 10 00 00 A0"))}
	_, _, err := ReadHeader(r, DefaultMaxHeaderBytes, nil)
	wantViolation(t, err, "header_len 1048576 exceeds")
	if r.bytes != 6 {
		t.Fatalf("read %d bytes, want only the 6-byte preamble", r.bytes)
	}
	r = &countingReader{r: bytes.NewReader(unhex(t, "58 01 00 A0"))}
	_, _, err = ReadHeader(r, DefaultMaxHeaderBytes, nil)
	wantViolation(t, err, "magic")
	if r.bytes != 3 {
		t.Fatalf("read %d bytes after a bad magic, want 3", r.bytes)
	}
}

// failingReader yields its bytes, then a transport error.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadHeaderPassesTransportErrorsThrough(t *testing.T) {
	reset := errors.New("stream reset by peer")
	frame, _ := frameOf(100)
	for _, n := range []int{0, 2, 3, 10} {
		_, _, err := ReadHeader(&failingReader{data: frame[:n], err: reset}, DefaultMaxHeaderBytes, nil)
		if !errors.Is(err, reset) || errors.Is(err, ErrProtocolViolation) {
			t.Errorf("after %d bytes: %v, want the transport error unchanged", n, err)
		}
	}
}
