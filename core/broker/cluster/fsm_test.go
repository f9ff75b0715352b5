package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

func apply(t *testing.T, f *FSM, e Entry) any {
	t.Helper()
	raw, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return f.Apply(&raft.Log{Index: 1, Data: raw})
}

func admitInline(body string) Entry {
	d := sha256.Sum256([]byte(body))
	return Entry{Kind: EntryAdmit, Digest: d[:], Length: uint64(len(body)), Body: []byte(body)}
}

func admitStreamed(digest byte) Entry {
	return Entry{Kind: EntryAdmit, Digest: bytes.Repeat([]byte{digest}, 32), Length: MaxInlineBody + 1}
}

// TestFSMAppliesABatchAsItsEntries: a batch's ADMITs get consecutive seqs
// and its DELIVERs count attempts, exactly as the same entries one by one
// would, and each entry's answer comes back in its place.
func TestFSMAppliesABatchAsItsEntries(t *testing.T) {
	one, batched := NewFSM(), NewFSM()
	entries := []Entry{admitInline("a"), admitInline("b"), {Kind: EntryDeliver, Seq: 1, Attempt: 2}, admitInline("c")}
	for _, e := range entries {
		apply(t, one, e)
	}
	res, ok := apply(t, batched, Entry{Kind: EntryBatch, Batch: entries}).(BatchResult)
	want := BatchResult{AdmitResult{Seq: 1}, AdmitResult{Seq: 2}, nil, AdmitResult{Seq: 3}}
	if !ok || len(res) != len(want) {
		t.Fatalf("the batch answered %v, want %v", res, want)
	}
	for i := range want {
		if res[i] != want[i] {
			t.Fatalf("the batch answered %v, want %v", res, want)
		}
	}
	for seq := uint64(1); seq <= 3; seq++ {
		a, _ := one.Live(seq)
		b, ok := batched.Live(seq)
		if !ok || string(a.Body) != string(b.Body) || a.Attempts != b.Attempts {
			t.Fatalf("seq %d: one by one %+v, batched %+v", seq, a, b)
		}
	}
	if m, _ := batched.Live(1); m.Attempts != 2 || batched.NextSeq() != 4 {
		t.Fatalf("attempts %d, next seq %d; want 2 and 4", m.Attempts, batched.NextSeq())
	}
}

func TestFSMAssignsSeqsAndCountsReferences(t *testing.T) {
	f := NewFSM()
	for i, e := range []Entry{admitInline("a"), admitStreamed(1), admitStreamed(1), admitStreamed(2)} {
		if got := apply(t, f, e); got != (AdmitResult{Seq: uint64(i + 1)}) {
			t.Fatalf("admit %d answered %v", i, got)
		}
	}
	d1 := [32]byte(bytes.Repeat([]byte{1}, 32))
	if f.Len() != 4 || f.NextSeq() != 5 || f.References(d1) != 2 {
		t.Fatalf("len %d, next %d, refs %d", f.Len(), f.NextSeq(), f.References(d1))
	}
	apply(t, f, Entry{Kind: EntryDeliver, Seq: 2, Attempt: 3})
	apply(t, f, Entry{Kind: EntryDeliver, Seq: 2, Attempt: 2}) // an older attempt never lowers it
	if m, _ := f.Live(2); m.Attempts != 3 {
		t.Fatalf("attempts %d, want 3", m.Attempts)
	}
	res := apply(t, f, Entry{Kind: EntrySettle, Seqs: []uint64{2, 9, 4}}).(SettleResult)
	d2 := [32]byte(bytes.Repeat([]byte{2}, 32))
	if res.Settled != 2 || len(res.Freed) != 1 || res.Freed[0] != d2 {
		t.Fatalf("settle answered %+v: want 2 settled and digest 2 freed (1 is still referred to)", res)
	}
	res = apply(t, f, Entry{Kind: EntrySettle, Seqs: []uint64{3, 3}}).(SettleResult)
	if res.Settled != 1 || len(res.Freed) != 1 || res.Freed[0] != d1 {
		t.Fatalf("second settle answered %+v", res)
	}
	if apply(t, f, Entry{Kind: EntryDeliver, Seq: 3, Attempt: 9}); f.Len() != 1 {
		t.Fatal("a delivery of a settled message revived it")
	}
	if err, ok := f.Apply(&raft.Log{Index: 42, Data: []byte{0xff}}).(error); !ok || !strings.Contains(err.Error(), "log index 42") {
		t.Fatalf("a malformed entry answered %v", err)
	}
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }
func (s *memSink) Close() error  { return nil }

func snapshotOf(t *testing.T, f *FSM) []byte {
	t.Helper()
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes()
}

func TestSnapshotRestoresTheSameState(t *testing.T) {
	f := NewFSM()
	topic := "jobs.a"
	e := admitInline("hello")
	e.Topic = &topic
	apply(t, f, e)
	apply(t, f, admitStreamed(7))
	apply(t, f, admitInline(""))
	apply(t, f, Entry{Kind: EntryDeliver, Seq: 2, Attempt: 4})
	apply(t, f, Entry{Kind: EntrySettle, Seqs: []uint64{1}})
	data := snapshotOf(t, f)
	g := NewFSM()
	if err := g.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	if g.Len() != 2 || g.NextSeq() != 4 || g.References([32]byte(bytes.Repeat([]byte{7}, 32))) != 1 {
		t.Fatalf("restored len %d, next %d", g.Len(), g.NextSeq())
	}
	m, ok := g.Live(2)
	if !ok || m.Attempts != 4 || m.Length != MaxInlineBody+1 {
		t.Fatalf("message 2 restored as %+v", m)
	}
	if m, ok := g.Live(3); !ok || m.Length != 0 || len(m.Body) != 0 {
		t.Fatalf("the empty message restored as %+v, %v", m, ok)
	}
	if !bytes.Equal(snapshotOf(t, g), data) {
		t.Fatal("a restored state snapshots differently")
	}
}

func TestRestoreRefusesABadSnapshot(t *testing.T) {
	f := NewFSM()
	apply(t, f, admitInline("a"))
	apply(t, f, admitInline("b"))
	good := snapshotOf(t, f)
	frame := func(v any) []byte {
		var b bytes.Buffer
		if err := writeFrame(&b, v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	hdr := frame(snapshotHeader{NextSeq: 3, Count: 2})
	msg := func(seq uint64) []byte {
		d := sha256.Sum256([]byte("x"))
		return frame(snapshotMessage{Seq: seq, Digest: d[:], Length: 1, Body: []byte("x")})
	}
	huge := binary.LittleEndian.AppendUint32(nil, maxEntryBytes+1)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "unexpected EOF"},
		{"missing a message", cat(hdr, msg(1)), "message 2 of 2"},
		{"trailing data", cat(good, []byte{0}), "data after"},
		{"a repeated seq", cat(hdr, msg(1), msg(1)), "seq 1 after 1"},
		{"a seq at next seq", cat(hdr, msg(1), msg(3)), "seq 3 after 1, next seq 3"},
		{"an oversized frame", cat(hdr, huge), "more than"},
		{"a bad version", frame(snapshotHeader{Version: 1, NextSeq: 1}), "version 1"},
		{"an inline body that lies", cat(hdr, msg(1), frame(snapshotMessage{Seq: 2, Digest: make([]byte, 32), Length: 3})), "must be inline"},
	}
	for _, tc := range cases {
		g := NewFSM()
		apply(t, g, admitInline("kept"))
		err := g.Restore(io.NopCloser(bytes.NewReader(tc.data)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
		if g.Len() != 1 {
			t.Errorf("%s: a refused snapshot changed the state", tc.name)
		}
	}
}

func FuzzRestoreSnapshot(f *testing.F) {
	fsm := NewFSM()
	for _, e := range []Entry{admitInline("a"), admitStreamed(3), {Kind: EntryDeliver, Seq: 2, Attempt: 2}} {
		raw, _ := e.Encode()
		fsm.Apply(&raft.Log{Data: raw})
	}
	snap, _ := fsm.Snapshot()
	var sink memSink
	snap.Persist(&sink)
	f.Add(sink.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		g := NewFSM()
		if err := g.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
			return
		}
		// What restores snapshots again to the same bytes.
		snap, _ := g.Snapshot()
		var again memSink
		if err := snap.Persist(&again); err != nil {
			t.Fatal(err)
		}
		h := NewFSM()
		if err := h.Restore(io.NopCloser(bytes.NewReader(again.Bytes()))); err != nil || h.Len() != g.Len() || h.NextSeq() != g.NextSeq() {
			t.Fatalf("a restored state does not restore again: %v", err)
		}
	})
}
