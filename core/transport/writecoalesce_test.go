package transport

import (
	"bytes"
	"testing"

	"github.com/quic-go/quic-go"
)

// recordingHalf is a send half that keeps each write it is given.
type recordingHalf struct{ writes [][]byte }

func (r *recordingHalf) Write(p []byte) (int, error) {
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}
func (r *recordingHalf) Close() error                     { return nil }
func (r *recordingHalf) CancelWrite(quic.StreamErrorCode) {}
func (r *recordingHalf) StreamID() quic.StreamID          { return 2 }

// The header of a transfer whose first write is larger than coalesceMax
// leaves with the first coalesceMax payload bytes, never alone: a header
// written by itself could take a packet of its own.
func TestALargeFirstWriteCarriesTheHeader(t *testing.T) {
	for _, size := range []int{10, coalesceMax, coalesceMax + 1, 4 * coalesceMax} {
		rec := &recordingHalf{}
		hdr := []byte("preamble+header")
		o := &OutStream{s: rec, pending: hdr}
		payload := bytes.Repeat([]byte{0xAB}, size)
		n, err := o.Write(payload)
		if err != nil || n != size {
			t.Fatalf("%d bytes: wrote %d (%v), want all of them", size, n, err)
		}
		first := rec.writes[0]
		if !bytes.HasPrefix(first, hdr) || len(first) != len(hdr)+min(size, coalesceMax) {
			t.Fatalf("%d bytes: the first write is %d bytes, want the header and %d payload bytes", size, len(first), min(size, coalesceMax))
		}
		if got := bytes.Join(rec.writes, nil); !bytes.Equal(got, append(append([]byte(nil), hdr...), payload...)) {
			t.Fatalf("%d bytes: the writes carry %d bytes, want the header then the payload exactly", size, len(got))
		}
		if o.Written() != int64(len(hdr)+size) {
			t.Fatalf("%d bytes: Written is %d, want %d", size, o.Written(), len(hdr)+size)
		}
	}
}
