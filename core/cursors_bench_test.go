package weida_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/wire"
)

// The cursor benchmarks stream one large transfer per op over loopback,
// both ends in this process, at the default reporting granularity (every
// 1 MiB or 100 ms, whichever first). The receiver reads in 64 KiB pieces
// and, when a report was ordered, reports Processed after every piece —
// far more often than the granularity lets through, as a consumer that
// reports eagerly would.

const (
	cursorsBenchBytes = 256 << 20
	cursorsBenchChunk = 64 << 10
)

// cursorsStreamer is an established connection to a receiver that reads
// every transfer to its end, answering any report order.
type cursorsStreamer struct {
	*weidaPair
	received chan int64 // bytes of each transfer the receiver read whole
}

func openCursorsStreamer(tb testing.TB) *cursorsStreamer {
	s := &cursorsStreamer{received: make(chan int64, 1)}
	s.weidaPair = connectWeida(tb, func(ctx context.Context, a *weida.Acceptor) error {
		buf := make([]byte, cursorsBenchChunk)
		for {
			in, err := a.Accept(ctx)
			if err != nil {
				return err
			}
			t, ok := in.(*weida.IncomingTransfer)
			if !ok {
				return fmt.Errorf("accepted %T, want a one-way transfer", in)
			}
			n, err := cursorsConsume(t, buf)
			if err != nil {
				return err
			}
			s.received <- n
		}
	})
	return s
}

// cursorsConsume reads t to its end, reporting Processed after every piece
// when the sender ordered a report.
func cursorsConsume(t *weida.IncomingTransfer, buf []byte) (int64, error) {
	rep := t.Reporter()
	var total int64
	for {
		n, err := t.Read(buf)
		total += int64(n)
		if rep != nil && n > 0 {
			if rerr := rep.Report(weida.Processed, uint64(total)); rerr != nil {
				return total, rerr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return total, err
		}
	}
	if rep != nil {
		return total, rep.Finish()
	}
	return total, nil
}

// stream sends one transfer of size bytes under order and returns once the
// sender knows it was consumed: from the report when one was ordered
// (Processed at the full length), else from the receiver's own signal.
func (s *cursorsStreamer) stream(ctx context.Context, payload []byte, size int, order weida.ReportOrder) (*weida.Cursors, error) {
	out, err := s.peer.Open(ctx, weida.TransferMeta{Report: order})
	if err != nil {
		return nil, err
	}
	cursors := out.Cursors()
	for sent := 0; sent < size; sent += len(payload) {
		if _, err := out.Write(payload); err != nil {
			return nil, err
		}
	}
	if _, err := out.Finish(); err != nil {
		return nil, err
	}
	select {
	case n := <-s.received:
		if n != int64(size) {
			return nil, fmt.Errorf("the receiver read %d bytes, want %d", n, size)
		}
	case <-s.stopped:
		return nil, fmt.Errorf("the receiver failed: %v", s.loopErr)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if cursors == nil {
		return nil, nil
	}
	for {
		if off, ok := cursors.Offset(weida.Processed); ok && off == uint64(size) {
			return cursors, nil
		}
		if _, more, err := cursors.Changed(ctx); err != nil || !more {
			return nil, fmt.Errorf("the report ended at %v (%v) before Processed reached %d", cursors.Snapshot(), err, size)
		}
	}
}

// BenchmarkCursorsStreamed256MiB measures a 256 MiB streamed transfer with
// and without a Processed order; with one it reports what the report cost
// on the wire: records and bytes (head included) per MiB of payload.
func BenchmarkCursorsStreamed256MiB(b *testing.B) {
	cases := []struct {
		name  string
		order weida.ReportOrder
	}{
		{"no-order", weida.ReportOrder{}},
		{"processed", reportOf(weida.Processed)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s := openCursorsStreamer(b)
			payload := reqrepPattern(cursorsBenchChunk)
			b.SetBytes(cursorsBenchBytes)
			var records, bytes uint64
			b.ResetTimer()
			for range b.N {
				cursors, err := s.stream(b.Context(), payload, cursorsBenchBytes, tc.order)
				if err != nil {
					b.Fatal(err)
				}
				if cursors != nil {
					r, n := weida.CursorsTraffic(cursors)
					records += r
					bytes += n + cursorsHeadBytes(cursors)
				}
			}
			b.StopTimer()
			if tc.order.Levels != nil {
				mib := float64(b.N) * cursorsBenchBytes / (1 << 20)
				b.ReportMetric(float64(records)/mib, "records/MiB")
				b.ReportMetric(float64(bytes)/mib, "cursor-B/MiB")
			}
		})
	}
}

// BenchmarkCursorsProcessedOverhead streams the 256 MiB transfer twice per
// op on one connection, without and with a Processed order, alternating
// which goes first, and reports the median of the per-op time ratios as
// the report's overhead in percent: pairing the two runs keeps load that
// drifts over a long benchmark out of the comparison.
func BenchmarkCursorsProcessedOverhead(b *testing.B) {
	s := openCursorsStreamer(b)
	payload := reqrepPattern(cursorsBenchChunk)
	orders := [2]weida.ReportOrder{{}, reportOf(weida.Processed)}
	ratios := make([]float64, 0, b.N)
	b.SetBytes(2 * cursorsBenchBytes)
	b.ResetTimer()
	for i := range b.N {
		var took [2]time.Duration
		for k := range 2 {
			which := (i + k) % 2
			start := time.Now()
			if _, err := s.stream(b.Context(), payload, cursorsBenchBytes, orders[which]); err != nil {
				b.Fatal(err)
			}
			took[which] = time.Since(start)
		}
		ratios = append(ratios, took[1].Seconds()/took[0].Seconds())
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(100*(ratios[len(ratios)/2]-1), "overhead-%")
}

// cursorsHeadBytes is the size of the CURSOR stream's preamble and head.
func cursorsHeadBytes(c *weida.Cursors) uint64 {
	head := wire.CursorHead{ReportID: weida.CursorsReportID(c)}
	return uint64(len(wire.AppendFrame(nil, wire.KindCursor, &head)))
}

// TestCursorsBenchHarnessSmoke runs the benchmark body on a small transfer,
// so `go test` keeps the harness from rotting.
func TestCursorsBenchHarnessSmoke(t *testing.T) {
	s := openCursorsStreamer(t)
	payload := reqrepPattern(cursorsBenchChunk)
	for _, order := range []weida.ReportOrder{{}, reportOf(weida.Processed)} {
		cursors, err := s.stream(t.Context(), payload, 4*cursorsBenchChunk, order)
		if err != nil {
			t.Fatal(err)
		}
		if (cursors == nil) != (order.Levels == nil) {
			t.Fatalf("order %v: cursors %v", order, cursors)
		}
		if cursors != nil {
			if records, bytes := weida.CursorsTraffic(cursors); records == 0 || bytes < 2*records {
				t.Fatalf("traffic: %d records in %d bytes", records, bytes)
			}
		}
	}
}
