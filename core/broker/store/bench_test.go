package store_test

import (
	"encoding/binary"
	"sync/atomic"
	"testing"

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
