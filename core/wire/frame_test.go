package wire

import (
	"bytes"
	"testing"
)

func TestAppendFrameGrowsTheVarint(t *testing.T) {
	for _, size := range []int{0, 63, 64, 16383, 16384, 70000} {
		hdr := rawHeader(bytes.Repeat([]byte{0xAB}, size))
		prefix := []byte("earlier frames")
		got := AppendFrame(append([]byte(nil), prefix...), KindData, hdr)
		want := append(AppendPreamble(append([]byte(nil), prefix...), KindData, size), hdr...)
		if !bytes.Equal(got, want) {
			t.Errorf("header of %d bytes: frame differs", size)
		}
	}
}

func TestAppendFrameAllocatesNothingIntoRoomyBuffer(t *testing.T) {
	d := &Data{Endpoint: Some("/t"), Topic: Some("px.eur")}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendFrame(buf[:0], KindData, d) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
	big := rawHeader(bytes.Repeat([]byte{1}, 1000))
	buf = make([]byte, 0, 2048)
	if n := testing.AllocsPerRun(100, func() { buf = AppendFrame(buf[:0], KindData, &big) }); n != 0 {
		t.Fatalf("%v allocations with a 2-byte varint", n)
	}
}

// rawHeader appends fixed bytes, standing in for a header of any length.
type rawHeader []byte

func (h rawHeader) AppendHeader(b []byte) []byte { return append(b, h...) }
