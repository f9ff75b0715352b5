package store_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
)

// copyTree copies a data directory so each case damages a fresh copy.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTornTailAtEveryOffset(t *testing.T) {
	template := t.TempDir()
	s := openStore(t, template, store.Options{})
	q, _ := openQueue(t, s, store.Written)
	meta := store.Meta{Topic: []byte("a.b"), HasTopic: true, Tracestate: []byte("k=v"), HasTracestate: true}
	first := []store.Message{admit(t, q, bodyOf(1, 40), meta), admit(t, q, bodyOf(2, 50), meta)}
	seg := segments(t, template)[0]
	keep := int64(len(fileBytes(t, seg)))
	admit(t, q, bodyOf(3, 60), meta)
	mustClose(t, s)
	full := int64(len(fileBytes(t, seg)))
	rel, _ := filepath.Rel(template, seg)

	for cut := keep; cut < full; cut++ {
		dir := t.TempDir()
		copyTree(t, template, dir)
		if err := os.Truncate(filepath.Join(dir, rel), cut); err != nil {
			t.Fatal(err)
		}
		s := openStore(t, dir, store.Options{})
		q, msgs := openQueue(t, s, store.Written)
		if !equalSeqs(seqsOf(msgs), seqsOf(first)) {
			t.Fatalf("cut at %d: live seqs %v, want %v", cut, seqsOf(msgs), seqsOf(first))
		}
		wantTorn := 1
		if cut == keep {
			wantTorn = 0 // a clean record boundary is not a torn tail
		}
		if st := q.Stats(); st.TornTails != wantTorn {
			t.Fatalf("cut at %d: TornTails = %d, want %d", cut, st.TornTails, wantTorn)
		}
		// The journal must take appends cleanly after the cut.
		m := admit(t, q, []byte("after"), store.Meta{})
		mustClose(t, s)
		s = openStore(t, dir, store.Options{})
		_, msgs = openQueue(t, s, store.Written)
		if len(msgs) != 3 || msgs[2].Seq != m.Seq {
			t.Fatalf("cut at %d: after an append and reopen, live = %v", cut, seqsOf(msgs))
		}
		mustClose(t, s)
	}
}

func TestTailGarbageIsTorn(t *testing.T) {
	tails := []struct {
		name string
		tail []byte
	}{
		{"zeros of a pre-extended file", make([]byte, 4096)},
		{"length over the cap", []byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 1}},
		{"bad checksum", []byte{1, 0, 0, 0, 9, 9, 9, 9, 2, 0}},
	}
	for _, tc := range tails {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openStore(t, dir, store.Options{})
			q, _ := openQueue(t, s, store.Written)
			m := admit(t, q, []byte("kept"), store.Meta{})
			mustClose(t, s)
			seg := segments(t, dir)[0]
			os.WriteFile(seg, append(fileBytes(t, seg), tc.tail...), 0o600)
			s = openStore(t, dir, store.Options{})
			defer s.Close()
			q, msgs := openQueue(t, s, store.Written)
			if len(msgs) != 1 || msgs[0].Seq != m.Seq || q.Stats().TornTails != 1 {
				t.Fatalf("live %v, stats %+v", seqsOf(msgs), q.Stats())
			}
		})
	}
}

// buildSegmented writes messages into a queue with tiny segments and returns
// the data dir and the admitted messages.
func buildSegmented(t *testing.T, n int) (string, []store.Message) {
	t.Helper()
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{SegmentBytes: 200})
	q, _ := openQueue(t, s, store.Written)
	var msgs []store.Message
	for i := 0; i < n; i++ {
		msgs = append(msgs, admit(t, q, bodyOf(i, fileSized), store.Meta{}))
	}
	mustClose(t, s)
	return dir, msgs
}

// TestCorruptStoreIsRefused: journal damage anywhere but a torn tail
// refuses the queue at any durability; a payload that is missing or does
// not match its ADMIT refuses a Flushed queue (a Written one drops the
// message: TestWrittenQueueDropsWhatAnOSCrashTook).
func TestCorruptStoreIsRefused(t *testing.T) {
	tests := []struct {
		name    string
		flushed bool
		damage  func(t *testing.T, dir string, msgs []store.Message) string // returns a name the error must carry
	}{
		{"flipped byte in a middle segment", false, func(t *testing.T, dir string, _ []store.Message) string {
			segs := segments(t, dir)
			if len(segs) < 3 {
				t.Fatalf("only %d segments", len(segs))
			}
			flipByte(t, segs[1], 20)
			return segs[1] + " at offset 0"
		}},
		{"flipped byte in the last segment with records after it", false, func(t *testing.T, dir string, _ []store.Message) string {
			segs := segments(t, dir)
			last := segs[len(segs)-1]
			if len(fileBytes(t, last)) < 2*60 {
				t.Fatalf("last segment too short to hold two records")
			}
			flipByte(t, last, 20)
			return last + " at offset 0"
		}},
		{"SETTLE of a seq never admitted", false, func(t *testing.T, dir string, _ []store.Message) string {
			segs := segments(t, dir)
			last := segs[len(segs)-1]
			os.WriteFile(last, append(fileBytes(t, last), store.SettleFrame(999)...), 0o600)
			return "SETTLE names seq 999"
		}},
		{"missing payload", true, func(t *testing.T, dir string, msgs []store.Message) string {
			path := store.PayloadPath(dir, msgs[2].Digest)
			os.Remove(path)
			return fmt.Sprintf("payload %s of live seq %d (sha256 %x) is missing", path, msgs[2].Seq, msgs[2].Digest)
		}},
		{"short payload", true, func(t *testing.T, dir string, msgs []store.Message) string {
			path := store.PayloadPath(dir, msgs[2].Digest)
			os.Truncate(path, 3)
			return path
		}},
		{"zeroed payload of the right length", true, func(t *testing.T, dir string, msgs []store.Message) string {
			path := store.PayloadPath(dir, msgs[2].Digest)
			os.WriteFile(path, make([]byte, msgs[2].BodyLen), 0o600)
			return fmt.Sprintf("live seq %d (sha256 %x)", msgs[2].Seq, msgs[2].Digest)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, msgs := buildSegmented(t, 9)
			mention := tc.damage(t, dir, msgs)
			s := openStore(t, dir, store.Options{SegmentBytes: 200})
			defer s.Close()
			d := store.Written
			if tc.flushed {
				d = store.Flushed
			}
			_, _, err := s.OpenQueue(queuePath, d)
			if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), mention) {
				t.Fatalf("OpenQueue = %v, want ErrCorrupt naming %q", err, mention)
			}
			// Other queues keep working on a store with one corrupt queue.
			other, _, err := s.OpenQueue([]byte("/other"), store.Written)
			if err != nil {
				t.Fatalf("another queue: %v", err)
			}
			admit(t, other, []byte("still fine"), store.Meta{})
		})
	}
}

func flipByte(t *testing.T, path string, at int) {
	t.Helper()
	b := fileBytes(t, path)
	b[at] ^= 0x40
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestUnreferencedPayloadsSwept(t *testing.T) {
	for _, corruptOther := range []bool{false, true} {
		dir := t.TempDir()
		s := openStore(t, dir, store.Options{})
		q, _ := openQueue(t, s, store.Written)
		live := admit(t, q, bodyOf(1, fileSized), store.Meta{})
		other, _, _ := s.OpenQueue([]byte("/other"), store.Written)
		admit(t, other, []byte("other"), store.Meta{})
		mustClose(t, s)
		stray := store.PayloadPath(dir, [32]byte{0xee, 1})
		os.MkdirAll(filepath.Dir(stray), 0o700)
		os.WriteFile(stray, []byte("left by a crash between settle and unlink"), 0o600)
		if corruptOther { // a damaged record with a valid one after it
			segs, _ := filepath.Glob(filepath.Join(store.QueueDir(dir, []byte("/other")), "*.seg"))
			b := fileBytes(t, segs[0])
			damaged := append([]byte(nil), b...)
			damaged[20] ^= 0x40
			os.WriteFile(segs[0], append(append(append([]byte(nil), b...), damaged...), b...), 0o600)
		}
		s = openStore(t, dir, store.Options{})
		_, err := os.Stat(stray)
		if swept := errors.Is(err, os.ErrNotExist); swept == corruptOther {
			t.Errorf("corrupt other queue %v: stray payload swept = %v", corruptOther, swept)
		}
		if _, err := os.Stat(store.PayloadPath(dir, live.Digest)); err != nil {
			t.Errorf("a live payload was swept: %v", err)
		}
		mustClose(t, s)
	}
}

// TestTornRecordHidingAFrameIsTorn: a producer chooses its topic bytes, so a
// torn ADMIT may carry a valid-looking frame inside. That must not turn the
// torn tail into "corruption with records after it" and refuse the queue.
func TestTornRecordHidingAFrameIsTorn(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	q, _ := openQueue(t, s, store.Written)
	kept := admit(t, q, []byte("kept"), store.Meta{})
	admit(t, q, []byte("torn"), store.Meta{Topic: store.SettleFrame(kept.Seq), HasTopic: true})
	mustClose(t, s)
	seg := segments(t, dir)[0]
	b := fileBytes(t, seg)
	os.WriteFile(seg, b[:len(b)-1], 0o600) // cut inside the trailing length prefixes
	s = openStore(t, dir, store.Options{})
	defer s.Close()
	q, msgs, err := s.OpenQueue(queuePath, store.Written)
	if err != nil {
		t.Fatalf("OpenQueue: %v", err)
	}
	if len(msgs) != 1 || msgs[0].Seq != kept.Seq || q.Stats().TornTails != 1 {
		t.Fatalf("live %v, stats %+v", seqsOf(msgs), q.Stats())
	}
}
