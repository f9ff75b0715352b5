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

// streamed is what one streamed transfer took.
type streamed struct {
	cursors  *weida.Cursors // nil without an order
	transfer time.Duration  // from Open until the receiver had read it all
	cpu      time.Duration  // process CPU time over the same span (0 where unmeasured)
	verdict  time.Duration  // from then until the Cursors showed Processed at the end
}

// stream sends one transfer of size bytes under order and returns once the
// sender knows it was consumed: from the report when one was ordered
// (Processed at the full length), else from the receiver's own signal.
func (s *cursorsStreamer) stream(ctx context.Context, payload []byte, size int, order weida.ReportOrder) (streamed, error) {
	start := time.Now()
	cpuStart, _ := processCPU()
	res, err := s.transfer(ctx, payload, size, order)
	if err != nil {
		return streamed{}, err
	}
	res.transfer = time.Since(start)
	if cpuEnd, ok := processCPU(); ok {
		res.cpu = cpuEnd - cpuStart
	}
	if res.cursors == nil {
		return res, nil
	}
	for {
		if off, ok := res.cursors.Offset(weida.Processed); ok && off == uint64(size) {
			res.verdict = time.Since(start) - res.transfer
			return res, nil
		}
		if _, more, err := res.cursors.Changed(ctx); err != nil || !more {
			return streamed{}, fmt.Errorf("the report ended at %v (%v) before Processed reached %d", res.cursors.Snapshot(), err, size)
		}
	}
}

// transfer writes the transfer and waits until the receiver read it all.
func (s *cursorsStreamer) transfer(ctx context.Context, payload []byte, size int, order weida.ReportOrder) (streamed, error) {
	out, err := s.peer.Open(ctx, weida.TransferMeta{Report: order})
	if err != nil {
		return streamed{}, err
	}
	res := streamed{cursors: out.Cursors()}
	for sent := 0; sent < size; sent += len(payload) {
		if _, err := out.Write(payload); err != nil {
			return streamed{}, err
		}
	}
	if _, err := out.Finish(); err != nil {
		return streamed{}, err
	}
	select {
	case n := <-s.received:
		if n != int64(size) {
			return streamed{}, fmt.Errorf("the receiver read %d bytes, want %d", n, size)
		}
		return res, nil
	case <-s.stopped:
		return streamed{}, fmt.Errorf("the receiver failed: %v", s.loopErr)
	case <-ctx.Done():
		return streamed{}, ctx.Err()
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
				res, err := s.stream(b.Context(), payload, cursorsBenchBytes, tc.order)
				if err != nil {
					b.Fatal(err)
				}
				if res.cursors != nil {
					r, n := weida.CursorsTraffic(res.cursors)
					records += r
					bytes += n + cursorsHeadBytes(res.cursors)
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
// which goes first. It reports the median of the per-op ratios of the
// transfer times (until the receiver read everything) as the order's
// throughput overhead in percent — pairing the two runs keeps load that
// drifts over a long benchmark out of the comparison — the same for the
// process's CPU time, which other processes on the machine barely disturb,
// and the median time the final Processed record then took to reach the
// sender.
func BenchmarkCursorsProcessedOverhead(b *testing.B) {
	s := openCursorsStreamer(b)
	payload := reqrepPattern(cursorsBenchChunk)
	orders := [2]weida.ReportOrder{{}, reportOf(weida.Processed)}
	ratios := make([]float64, 0, b.N)
	cpuRatios := make([]float64, 0, b.N)
	lags := make([]time.Duration, 0, b.N)
	b.SetBytes(2 * cursorsBenchBytes)
	b.ResetTimer()
	for i := range b.N {
		var took [2]streamed
		for k := range 2 {
			which := (i + k) % 2
			res, err := s.stream(b.Context(), payload, cursorsBenchBytes, orders[which])
			if err != nil {
				b.Fatal(err)
			}
			took[which] = res
		}
		ratios = append(ratios, took[1].transfer.Seconds()/took[0].transfer.Seconds())
		if took[0].cpu > 0 {
			cpuRatios = append(cpuRatios, took[1].cpu.Seconds()/took[0].cpu.Seconds())
		}
		lags = append(lags, took[1].verdict)
	}
	b.StopTimer()
	slices.Sort(ratios)
	slices.Sort(lags)
	b.ReportMetric(100*(ratios[len(ratios)/2]-1), "overhead-%")
	if len(cpuRatios) > 0 {
		slices.Sort(cpuRatios)
		b.ReportMetric(100*(cpuRatios[len(cpuRatios)/2]-1), "cpu-overhead-%")
	}
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "verdict-lag-ms")
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
		res, err := s.stream(t.Context(), payload, 4*cursorsBenchChunk, order)
		if err != nil {
			t.Fatal(err)
		}
		if (res.cursors == nil) != (order.Levels == nil) || res.transfer <= 0 {
			t.Fatalf("order %v: %+v", order, res)
		}
		if res.cursors != nil {
			if records, bytes := weida.CursorsTraffic(res.cursors); records == 0 || bytes < 2*records {
				t.Fatalf("traffic: %d records in %d bytes", records, bytes)
			}
		}
	}
}
