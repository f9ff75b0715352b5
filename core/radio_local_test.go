package weida_test

import (
	"testing"

	weida "github.com/weida-go/weida/core"
)

// localTransports are the transports without a path to estimate: no
// supersession grace, no priorities (PROTOCOL.md §12).
func localTransports() []testTransport { return transports[1:] }

// TestRadioLocalGraceIsZero: locally a finished segment the dish has not
// taken whole (its FIN is not in the dish's buffer) is reset the moment its
// successor opens, where QUIC would give it a grace of an RTT and more.
func TestRadioLocalGraceIsZero(t *testing.T) {
	for _, tr := range localTransports() {
		t.Run(tr.name, func(t *testing.T) {
			r, b := radioServeOn(t, tr, weida.Config{})
			d := radioDish(t, weida.Config{}, r, b, "", weida.JoinOptions{}, 1)
			// 2 MiB to a dish that reads nothing: more than a stream window
			// in process and than the kernel buffers a unix socket.
			const chunk, chunks = 64 << 10, 32
			s, err := r.Segment("t", weida.SegmentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range chunks {
				if n, err := s.Write(segmentBytes(0, chunk)); n != 1 || err != nil {
					t.Fatalf("chunk %d reached %d copies (%v)", i, n, err)
				}
			}
			if alive, err := s.Finish(); alive != 1 || err != nil {
				t.Fatalf("finish: %d alive, %v", alive, err)
			}
			if _, err := r.Segment("t", weida.SegmentOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := dropsOf(r); got.Superseded != 1 || s.Alive() != 0 {
				t.Fatalf("superseded %d, alive %d: a finished, unacknowledged segment gets no grace locally", got.Superseded, s.Alive())
			}
			if d.Overflow() != 0 {
				t.Fatal("the dish overflowed: the segment must have been held by the transport, not refused")
			}
		})
	}
}
