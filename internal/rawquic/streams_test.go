package rawquic

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name    string
		message string
		bufLen  int
		want    string
		wantErr string
	}{
		{name: "empty", message: "", bufLen: 4, want: ""},
		{name: "shorter than the buffer", message: "ab", bufLen: 4, want: "ab"},
		{name: "one byte below the buffer fits", message: "abc", bufLen: 4, want: "abc"},
		{name: "filling the buffer is too long", message: "abcd", bufLen: 4, wantErr: "longer than 3 bytes"},
		{name: "far too long", message: strings.Repeat("x", 100), bufLen: 4, wantErr: "longer than 3 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// OneByteReader makes ReadMessage loop, as a stream read does.
			r := iotest.OneByteReader(strings.NewReader(tt.message))
			n, err := ReadMessage(r, make([]byte, tt.bufLen))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ReadMessage error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || n != len(tt.want) {
				t.Fatalf("ReadMessage = %d, %v; want %d, nil", n, err, len(tt.want))
			}
		})
	}
}

func TestReadMessageReportsReadErrors(t *testing.T) {
	r := io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(io.ErrClosedPipe))
	if _, err := ReadMessage(r, make([]byte, 8)); err != io.ErrClosedPipe {
		t.Fatalf("ReadMessage error = %v, want %v", err, io.ErrClosedPipe)
	}
}

func TestPair(t *testing.T) {
	tests := []struct {
		name       string
		withTracer bool
		request    int // bytes sent; the server accepts at most 16
		wantErr    bool
	}{
		{name: "echo", request: 16},
		{name: "echo with tracer", withTracer: true, request: 16},
		{name: "oversized request is reset and reported", request: 17, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Establish(t.Context(), tt.withTracer)
			if err != nil {
				t.Fatal(err)
			}
			reply := []byte("reply")
			p.ServeEcho(reply, 16)
			got := make([]byte, 8)
			n, err := p.Exchange(t.Context(), make([]byte, tt.request), got)
			closeErr := p.Close()
			if tt.wantErr {
				if err == nil || closeErr == nil {
					t.Fatalf("Exchange error = %v, Close error = %v; want both set", err, closeErr)
				}
				return
			}
			if err != nil || !bytes.Equal(got[:n], reply) || closeErr != nil {
				t.Fatalf("Exchange = %q, %v; Close = %v; want %q, nil, nil", got[:n], err, closeErr, reply)
			}
		})
	}
}

func TestPairDrain(t *testing.T) {
	p, err := Establish(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 1)
	p.ServeDrain(8, func(n int, err error) {
		if err != nil {
			n = -1
		}
		got <- n
	})
	if err := p.Push(t.Context(), []byte("hello")); err != nil {
		t.Fatalf("Push: %v", err)
	}
	n := <-got
	if err := p.Close(); err != nil || n != len("hello") {
		t.Fatalf("drained %d bytes, Close = %v; want %d, nil", n, err, len("hello"))
	}
}
