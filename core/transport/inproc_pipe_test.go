package transport

import (
	"errors"
	"io"
	"testing"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/wire"
)

// streamCode returns the code and side of a *quic.StreamError, or ok false.
func streamCode(err error) (code uint64, remote, ok bool) {
	var se *quic.StreamError
	if !errors.As(err, &se) {
		return 0, false, false
	}
	return uint64(se.ErrorCode), se.Remote, true
}

// TestPipeEndings: each way a pipe direction can end, as its writer and
// its reader see it. A reset is never read as a complete payload.
func TestPipeEndings(t *testing.T) {
	lost := errors.New("connection lost (writer)")
	lostR := errors.New("connection lost (reader)")
	for _, tc := range []struct {
		name     string
		end      func(p *pipe)
		readErr  func(error) bool // what the reader sees after the bytes written
		writeErr func(error) bool // what a write after the end sees
	}{
		{"FIN", func(p *pipe) { _ = p.finish() },
			func(err error) bool { return err == io.EOF },
			func(err error) bool { return errors.Is(err, errWriteAfterFinish) }},
		{"writer reset", func(p *pipe) { p.cancelWrite(uint64(wire.CodeCanceled)) },
			func(err error) bool {
				c, remote, ok := streamCode(err)
				return ok && remote && c == uint64(wire.CodeCanceled)
			},
			func(err error) bool { _, remote, ok := streamCode(err); return ok && !remote }},
		{"reader stop", func(p *pipe) { p.cancelRead(uint64(wire.CodeRejected)) },
			func(err error) bool { _, remote, ok := streamCode(err); return ok && !remote },
			func(err error) bool {
				c, remote, ok := streamCode(err)
				return ok && remote && c == uint64(wire.CodeRejected)
			}},
		{"connection lost", func(p *pipe) { p.fail(lost, lostR) },
			func(err error) bool { return err == lostR },
			func(err error) bool { return err == lost }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			completed := 0
			var p pipe
			p.init(1<<10, func() { completed++ })
			if n, err := p.write([]byte("partial"), true); n != 7 || err != nil {
				t.Fatalf("write: %d, %v", n, err)
			}
			tc.end(&p)
			if _, err := p.write([]byte("x"), true); !tc.writeErr(err) {
				t.Fatalf("write after the end: %v", err)
			}
			buf := make([]byte, 64)
			var err error
			for err == nil {
				_, err = p.read(buf)
			}
			if !tc.readErr(err) {
				t.Fatalf("read: %v", err)
			}
			if completed != 1 {
				t.Fatalf("completed %d times, want once", completed)
			}
		})
	}
}

// TestPipeWindow: a writer waits while window bytes are unread, and
// TryWriteAll takes all or nothing.
func TestPipeWindow(t *testing.T) {
	var p pipe
	p.init(8, nil)
	if _, err := p.write([]byte("12345"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := p.write([]byte("6789"), false); !errors.Is(err, quic.ErrWouldBlock) {
		t.Fatalf("try-write beyond the window: %v, want ErrWouldBlock", err)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := p.write([]byte("6789abcd"), true)
		wrote <- err
	}()
	got := make([]byte, 0, 13)
	buf := make([]byte, 4)
	for len(got) < 13 {
		n, err := p.read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if err := <-wrote; err != nil || string(got) != "123456789abcd" {
		t.Fatalf("read %q, write %v", got, err)
	}
}
