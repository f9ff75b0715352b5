package system

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadWhole(t *testing.T) {
	tests := []struct {
		name    string
		r       io.Reader
		bufLen  int
		want    int
		wantErr string
	}{
		{name: "empty", r: strings.NewReader(""), bufLen: 4, want: 0},
		{name: "one byte below the buffer fits", r: iotest.OneByteReader(strings.NewReader("abc")), bufLen: 4, want: 3},
		{name: "filling the buffer is too long", r: strings.NewReader("abcd"), bufLen: 4, wantErr: "longer than 3 bytes"},
		{name: "a read error is returned", r: io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(io.ErrClosedPipe)), bufLen: 8, wantErr: io.ErrClosedPipe.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ReadWhole(tt.r, make([]byte, tt.bufLen))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ReadWhole error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || n != tt.want {
				t.Fatalf("ReadWhole = %d, %v; want %d, nil", n, err, tt.want)
			}
		})
	}
}
