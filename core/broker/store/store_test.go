package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/weida-go/weida/core/broker/store"
	"github.com/weida-go/weida/core/errs"
)

func TestAdmitSettleReopen(t *testing.T) {
	full := store.Meta{
		Topic: []byte("px.eur"), HasTopic: true,
		ContentType: []byte("application/json"), HasContentType: true,
		Traceparent: []byte("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), HasTraceparent: true,
		Tracestate: []byte("vendor=1"), HasTracestate: true,
	}
	emptyTopic := store.Meta{Topic: []byte{}, HasTopic: true}
	tests := []struct {
		name    string
		d       store.Durability
		bodies  [][]byte
		metas   []store.Meta
		settle  []int // indexes into bodies
		wantIdx []int // indexes live after reopen
	}{
		{"written, nothing settled", store.Written,
			[][]byte{bodyOf(1, 64), bodyOf(2, 0), bodyOf(3, 200_000)},
			[]store.Meta{full, {}, emptyTopic}, nil, []int{0, 1, 2}},
		{"flushed, middle settled", store.Flushed,
			[][]byte{bodyOf(1, 10), bodyOf(2, 20), bodyOf(3, 30)},
			[]store.Meta{{}, full, {}}, []int{1}, []int{0, 2}},
		{"written, all settled", store.Written,
			[][]byte{bodyOf(1, 10), bodyOf(2, 20)},
			[]store.Meta{full, full}, []int{0, 1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openStore(t, dir, store.Options{})
			q, msgs := openQueue(t, s, tc.d)
			if len(msgs) != 0 {
				t.Fatalf("a new queue has %d live messages", len(msgs))
			}
			var admitted []store.Message
			for i, body := range tc.bodies {
				admitted = append(admitted, admit(t, q, body, tc.metas[i]))
			}
			for _, i := range tc.settle {
				if err := q.Settle(admitted[i].Seq); err != nil {
					t.Fatalf("Settle: %v", err)
				}
			}
			mustClose(t, s)

			s = openStore(t, dir, store.Options{})
			defer s.Close()
			q, msgs = openQueue(t, s, tc.d)
			if len(msgs) != len(tc.wantIdx) {
				t.Fatalf("reopened with %d live messages, want %d", len(msgs), len(tc.wantIdx))
			}
			for k, i := range tc.wantIdx {
				got, want := msgs[k], admitted[i]
				if got.Seq != want.Seq || got.Digest != want.Digest || got.BodyLen != want.BodyLen || !metaEqual(got.Meta, tc.metas[i]) {
					t.Errorf("message %d after reopen = %+v, want %+v", k, got, want)
				}
				if body := readBody(t, q, got.Seq); !bytes.Equal(body, tc.bodies[i]) {
					t.Errorf("body of seq %d differs after reopen", got.Seq)
				}
			}
			if st := q.Stats(); st.Live != len(tc.wantIdx) || st.NextSeq != uint64(len(tc.bodies))+1 || st.TornTails != 0 {
				t.Errorf("Stats after reopen = %+v", st)
			}
			// Seqs continue after a reopen, never repeat.
			if m := admit(t, q, []byte("next"), store.Meta{}); m.Seq != uint64(len(tc.bodies))+1 {
				t.Errorf("first seq after reopen = %d, want %d", m.Seq, len(tc.bodies)+1)
			}
		})
	}
}

func TestDedupKeepsSharedPayloadUntilLastSettle(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Flushed)
	other, _, err := s.OpenQueue([]byte("/other"), store.Written)
	if err != nil {
		t.Fatal(err)
	}
	body := bodyOf(7, 5000)
	a := admit(t, q, body, store.Meta{})
	b := admit(t, q, body, store.Meta{})
	c := admit(t, other, body, store.Meta{})
	payload := store.PayloadPath(dir, a.Digest)
	if a.Digest != b.Digest || b.Digest != c.Digest {
		t.Fatal("identical bodies got different digests")
	}
	tmp, _ := os.ReadDir(filepath.Join(dir, "payload", "tmp"))
	if len(tmp) != 0 {
		t.Errorf("payload/tmp holds %d files after dedup", len(tmp))
	}
	steps := []struct {
		queue *store.Queue
		seq   uint64
	}{{q, a.Seq}, {other, c.Seq}}
	for _, st := range steps {
		if err := st.queue.Settle(st.seq); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readBody(t, q, b.Seq), body) {
			t.Fatalf("the remaining message lost its body after settling seq %d", st.seq)
		}
	}
	if err := q.Settle(b.Seq); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil { // Close removes payloads freed since the last batch
		t.Fatal(err)
	}
	if _, err := os.Stat(payload); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("payload still on disk after its last reference settled: %v", err)
	}
}

func TestAttemptsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	q, _ := openQueue(t, s, store.Written)
	m1 := admit(t, q, []byte("one"), store.Meta{})
	m2 := admit(t, q, []byte("two"), store.Meta{})
	for _, a := range []struct{ seq, count uint64 }{{m1.Seq, 1}, {m1.Seq, 2}, {m2.Seq, 5}, {m1.Seq, 3}} {
		if err := q.Attempt(a.seq, a.count); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, s)
	s = openStore(t, dir, store.Options{})
	defer s.Close()
	_, msgs := openQueue(t, s, store.Written)
	if len(msgs) != 2 || msgs[0].Attempts != 3 || msgs[1].Attempts != 5 {
		t.Fatalf("attempts after reopen: %+v", msgs)
	}
}

func TestTmpCleanedOnOpen(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	q, _ := openQueue(t, s, store.Written)
	b, err := q.NewBody()
	if err != nil {
		t.Fatal(err)
	}
	b.Write(make([]byte, 100<<10)) // more than the write buffer: spills to tmp
	if tmp, _ := os.ReadDir(filepath.Join(dir, "payload", "tmp")); len(tmp) != 1 {
		t.Fatalf("a large body in flight made %d temp files, want 1", len(tmp))
	}
	mustClose(t, s) // a crash mid-body leaves the temp file behind
	s = openStore(t, dir, store.Options{})
	defer s.Close()
	if tmp, _ := os.ReadDir(filepath.Join(dir, "payload", "tmp")); len(tmp) != 0 {
		t.Fatalf("payload/tmp holds %d files after Open", len(tmp))
	}
}

func TestBodyWriteErrorPropagates(t *testing.T) {
	s := openStore(t, t.TempDir(), store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	b, err := q.NewBody()
	if err != nil {
		t.Fatal(err)
	}
	store.SetBodySink(b, failingWriter{})
	big := make([]byte, 128<<10) // larger than the buffer: reaches the sink at once
	if _, err := b.Write(big); errs.KindOf(err) != errs.KindIO || !errors.Is(err, errNoSpace) {
		t.Fatalf("Write on a full disk = %v, want an Io error wrapping ENOSPC", err)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("a body stays usable after a write failure")
	}
	if _, err := q.Admit(b, store.Meta{}); err == nil {
		t.Error("Admit of a failed body succeeded")
	}
	if st := q.Stats(); st.Live != 0 {
		t.Errorf("a failed body left %d live messages", st.Live)
	}
}

var errNoSpace = errors.New("no space left on device")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errNoSpace }

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, store.Options{})
	defer s.Close()
	q, _ := openQueue(t, s, store.Written)
	m := admit(t, q, []byte("x"), store.Meta{})
	tests := []struct {
		name string
		call func() error
		kind errs.Kind
	}{
		{"memory durability", func() error { _, _, err := s.OpenQueue([]byte("/m"), store.Memory); return err }, errs.KindUnsupported},
		{"path over 512 bytes", func() error {
			_, _, err := s.OpenQueue(make([]byte, 513), store.Written)
			return err
		}, errs.KindInvalidEndpointPath},
		{"queue opened twice", func() error { _, _, err := s.OpenQueue(queuePath, store.Written); return err }, errs.KindAlreadyRegistered},
		{"second store on the directory", func() error { _, err := store.Open(dir, store.Options{}); return err }, errs.KindRuntime},
		{"settle of an unknown seq", func() error { return q.Settle(99) }, errs.KindRuntime},
		{"attempt of an unknown seq", func() error { return q.Attempt(99, 1) }, errs.KindRuntime},
		{"body of an unknown seq", func() error { _, err := q.OpenBody(99); return err }, errs.KindRuntime},
		{"settled twice", func() error {
			if err := q.Settle(m.Seq); err != nil {
				return nil
			}
			return q.Settle(m.Seq)
		}, errs.KindRuntime},
		{"topic over the cap", func() error {
			b, _ := q.NewBody()
			_, err := q.Admit(b, store.Meta{Topic: make([]byte, store.MaxTopicBytes+1), HasTopic: true})
			return err
		}, errs.KindTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if errs.KindOf(err) != tc.kind {
				t.Fatalf("got %v (kind %v), want kind %v", err, errs.KindOf(err), tc.kind)
			}
		})
	}
}

func TestUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	_, err := store.Open(dir, store.Options{})
	if errs.KindOf(err) != errs.KindIO || !bytes.Contains([]byte(err.Error()), []byte(dir)) {
		t.Fatalf("Open of a read-only directory = %v, want an Io error naming %s", err, dir)
	}
}

func TestDataDirUnderAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "data")
	_, err := store.Open(dir, store.Options{})
	if errs.KindOf(err) != errs.KindIO || !bytes.Contains([]byte(err.Error()), []byte(dir)) {
		t.Fatalf("Open under a regular file = %v, want an Io error naming %s", err, dir)
	}
}

func TestParseDurability(t *testing.T) {
	tests := []struct {
		in   string
		want store.Durability
		ok   bool
	}{{"memory", store.Memory, true}, {"written", store.Written, true}, {"flushed", store.Flushed, true},
		{"Flushed", 0, false}, {"", 0, false}, {"fsync", 0, false}}
	for _, tc := range tests {
		got, err := store.ParseDurability(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseDurability(%q) = %v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}
