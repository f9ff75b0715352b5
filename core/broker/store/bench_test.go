package store_test

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weida-go/weida/core/broker/store"
)

// BenchmarkAdmit64B measures admissions of distinct 64-byte bodies (no
// dedup) per second: serially, and from 16 goroutines per CPU, where Flushed
// admits share journal fsyncs. Such bodies go inline in the journal.
func BenchmarkAdmit64B(b *testing.B) { benchmarkAdmit(b, 64) }

// BenchmarkAdmit8KiB is BenchmarkAdmit64B for bodies too big to go inline:
// one payload file each.
func BenchmarkAdmit8KiB(b *testing.B) { benchmarkAdmit(b, 8<<10) }

func benchmarkAdmit(b *testing.B, size int) {
	cases := []struct {
		name     string
		d        store.Durability
		parallel bool
	}{
		{"written", store.Written, false},
		{"flushed", store.Flushed, false},
		{"written-parallel", store.Written, true},
		{"flushed-parallel", store.Flushed, true},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			s := openStore(b, b.TempDir(), store.Options{})
			defer s.Close()
			q, _ := openQueue(b, s, bc.d)
			var next atomic.Uint64
			admitOne := func(body []byte) {
				binary.LittleEndian.PutUint64(body, next.Add(1))
				w, err := q.NewBody()
				if err != nil {
					b.Fatal(err)
				}
				w.Write(body)
				if _, err := q.Admit(w, store.Meta{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if bc.parallel {
				b.SetParallelism(16)
				b.RunParallel(func(pb *testing.PB) {
					body := make([]byte, size)
					for pb.Next() {
						admitOne(body)
					}
				})
			} else {
				body := make([]byte, size)
				for i := 0; i < b.N; i++ {
					admitOne(body)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkSettle8KiB measures Settle of 8 KiB messages (each frees a
// payload file) on a queue with 1 MiB segments, so settles also purge
// segments and remove payloads. Besides ns/op it reports the slowest
// single Settle: a call that waits for an fsync holds up the broker's
// queue loop, which makes it.
func BenchmarkSettle8KiB(b *testing.B) {
	eachDurability(b, func(b *testing.B, q *store.Queue) {
		body, seqs := make([]byte, 8<<10), make([]uint64, b.N)
		for i := range seqs {
			seqs[i] = admitNumbered(b, q, body, i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		var slowest time.Duration
		for _, seq := range seqs {
			began := time.Now()
			if err := q.Settle(seq); err != nil {
				b.Fatal(err)
			}
			slowest = max(slowest, time.Since(began))
		}
		b.ReportMetric(float64(slowest.Microseconds()), "max-us/settle")
	})
}

// eachDurability runs bench on a fresh Written and a fresh Flushed queue
// with 1 MiB segments.
func eachDurability(b *testing.B, bench func(*testing.B, *store.Queue)) {
	for _, d := range []store.Durability{store.Written, store.Flushed} {
		b.Run(d.String(), func(b *testing.B) {
			s := openStore(b, b.TempDir(), store.Options{SegmentBytes: 1 << 20})
			defer s.Close()
			q, _ := openQueue(b, s, d)
			bench(b, q)
		})
	}
}

// admitNumbered admits body (8 KiB: one payload file) made distinct by i.
func admitNumbered(b *testing.B, q *store.Queue, body []byte, i int) uint64 {
	binary.LittleEndian.PutUint64(body, uint64(i))
	w, err := q.NewBody()
	if err != nil {
		b.Fatal(err)
	}
	w.Write(body)
	m, err := q.Admit(w, store.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	return m.Seq
}

// BenchmarkSteadyQueue is a queue in steady state, as the broker drives
// it: each op admits an 8 KiB message, records a delivery ATTEMPT for it
// and settles the one admitted 64 ops before (64 in flight).
func BenchmarkSteadyQueue(b *testing.B) {
	eachDurability(b, func(b *testing.B, q *store.Queue) {
		body, inFlight := make([]byte, 8<<10), []uint64(nil)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			seq := admitNumbered(b, q, body, i)
			if err := q.Attempt(seq, 1); err != nil {
				b.Fatal(err)
			}
			if inFlight = append(inFlight, seq); len(inFlight) > 64 {
				if err := q.Settle(inFlight[0]); err != nil {
					b.Fatal(err)
				}
				inFlight = inFlight[1:]
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}
