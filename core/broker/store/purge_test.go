package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
)

func TestSegmentRollAndPurge(t *testing.T) {
	const n = 30 // about 3 ADMITs per 200-byte segment: ~10 segments
	tests := []struct {
		name         string
		settle       func(seq uint64) bool
		quarantine   func(seq uint64) bool // else what settle spares stays live
		wantSegments func(before int) bool
	}{
		{"all settled: only the active segment stays", func(uint64) bool { return true }, nil,
			func(before int) bool { return before == 1 }},
		{"first unsettled pins every segment", func(seq uint64) bool { return seq != 1 }, nil,
			func(before int) bool { return before >= n/3 }},
		{"first half settled: the prefix goes", func(seq uint64) bool { return seq <= n/2 }, nil,
			func(before int) bool { return before > 1 && before < n/3 }},
		// A quarantined message pins nothing: before, its seq held every
		// segment from its ADMIT on for the life of the queue.
		{"first quarantined, the rest settled: only the active segment stays", func(seq uint64) bool { return seq != 1 },
			func(seq uint64) bool { return seq == 1 }, func(before int) bool { return before == 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := store.Options{SegmentBytes: 200}
			s := openStore(t, dir, opt)
			q, _ := openQueue(t, s, store.Written)
			var live []uint64
			for i := 0; i < n; i++ {
				admit(t, q, bodyOf(i, 30), store.Meta{})
			}
			if got := q.Stats().Segments; got < n/3 {
				t.Fatalf("%d segments after %d admits with 200-byte segments", got, n)
			}
			for seq := uint64(1); seq <= n; seq++ {
				if tc.quarantine != nil && tc.quarantine(seq) {
					if err := q.Quarantine(seq, "test"); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if !tc.settle(seq) {
					live = append(live, seq)
					continue
				}
				if err := q.Settle(seq); err != nil {
					t.Fatal(err)
				}
			}
			if err := store.Housekeep(q); err != nil {
				t.Fatal(err)
			}
			st := q.Stats()
			if !tc.wantSegments(st.Segments) || len(segments(t, dir)) != st.Segments {
				t.Fatalf("after settling: Stats %+v, %d segment files", st, len(segments(t, dir)))
			}
			mustClose(t, s)

			s = openStore(t, dir, opt)
			defer s.Close()
			q, msgs := openQueue(t, s, store.Written)
			if !equalSeqs(seqsOf(msgs), live) {
				t.Fatalf("live after reopen %v, want %v", seqsOf(msgs), live)
			}
			for _, m := range msgs {
				if string(readBody(t, q, m.Seq)) != string(bodyOf(int(m.Seq-1), 30)) {
					t.Fatalf("body of seq %d differs", m.Seq)
				}
			}
			if m := admit(t, q, []byte("next"), store.Meta{}); m.Seq != n+1 {
				t.Fatalf("seq after purge and reopen = %d, want %d", m.Seq, n+1)
			}
		})
	}
}

func TestCorruptCellSlotStillRecovers(t *testing.T) {
	for _, slots := range [][]string{{"newer"}, {"newer", "older"}} {
		dir := t.TempDir()
		opt := store.Options{SegmentBytes: 200}
		s := openStore(t, dir, opt)
		q, _ := openQueue(t, s, store.Written)
		for i := 0; i < 20; i++ {
			admit(t, q, bodyOf(i, 30), store.Meta{})
		}
		for seq := uint64(1); seq <= 15; seq++ {
			q.Settle(seq)
		}
		if err := store.Housekeep(q); err != nil {
			t.Fatal(err)
		}
		gen := q.Stats().Generation
		mustClose(t, s) // writes generation gen+1 into the other slot
		if gen == 0 {
			t.Fatal("no checkpoint cell was written by the purge")
		}
		qdir := store.QueueDir(dir, queuePath)
		newer := filepath.Join(qdir, []string{"cell.0", "cell.1"}[(gen+1)%2])
		older := filepath.Join(qdir, []string{"cell.0", "cell.1"}[gen%2])
		for _, which := range slots {
			path := map[string]string{"newer": newer, "older": older}[which]
			b := fileBytes(t, path)
			b[3] ^= 0xff
			os.WriteFile(path, b, 0o600)
		}
		s = openStore(t, dir, opt)
		q, msgs := openQueue(t, s, store.Written)
		if want := []uint64{16, 17, 18, 19, 20}; !equalSeqs(seqsOf(msgs), want) {
			t.Errorf("corrupt %v: live %v, want %v", slots, seqsOf(msgs), want)
		}
		if m := admit(t, q, []byte("x"), store.Meta{}); m.Seq != 21 {
			t.Errorf("corrupt %v: next seq %d, want 21", slots, m.Seq)
		}
		mustClose(t, s)
	}
}
