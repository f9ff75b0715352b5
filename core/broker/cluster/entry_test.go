package cluster

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func text(s string) *string { return &s }

var digest32 = bytes.Repeat([]byte{0xAB}, 32)

// Golden vectors: the canonical bytes of each kind. A change here changes
// what every member's log holds.
var entryVectors = []struct {
	name  string
	entry Entry
	hex   string
}{
	{"admit inline", Entry{Kind: EntryAdmit, Digest: digest32, Length: 2, Topic: text("t"), Body: []byte("hi")},
		"a5" + "0001" + "015820" + strings.Repeat("ab", 32) + "0202" + "036174" + "07426869"},
	{"admit streamed", Entry{Kind: EntryAdmit, Digest: digest32, Length: 5000, ContentType: text("a/b")},
		"a4" + "0001" + "015820" + strings.Repeat("ab", 32) + "02191388" + "0463612f62"},
	{"deliver", Entry{Kind: EntryDeliver, Seq: 7, Attempt: 2}, "a3" + "0002" + "0807" + "0902"},
	{"settle", Entry{Kind: EntrySettle, Seqs: []uint64{1, 2, 300}}, "a2" + "0003" + "0a83" + "0102" + "19012c"},
	{"batch", Entry{Kind: EntryBatch, Batch: []Entry{
		{Kind: EntryAdmit, Digest: digest32, Length: 2, Topic: text("t"), Body: []byte("hi")},
		{Kind: EntryDeliver, Seq: 7, Attempt: 2}}},
		"a2" + "0004" + "0b82" + "a5" + "0001" + "015820" + strings.Repeat("ab", 32) + "0202" + "036174" + "07426869" +
			"a3" + "0002" + "0807" + "0902"},
}

func TestEntryGoldenVectors(t *testing.T) {
	for _, v := range entryVectors {
		got, err := v.entry.Encode()
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if hex.EncodeToString(got) != v.hex {
			t.Errorf("%s: encodes as\n%x\nwant\n%s", v.name, got, v.hex)
		}
		raw, _ := hex.DecodeString(v.hex)
		back, err := DecodeEntry(raw)
		if err != nil {
			t.Fatalf("%s: decoding the vector: %v", v.name, err)
		}
		if !reflect.DeepEqual(*back, v.entry) {
			t.Errorf("%s: decodes as %+v", v.name, *back)
		}
	}
}

// TestPeekKindAgreesWithDecode: on every golden vector the peeked kind is
// the decoded one, and bytes that are not a canonical entry are not known.
func TestPeekKindAgreesWithDecode(t *testing.T) {
	for _, v := range entryVectors {
		raw, _ := hex.DecodeString(v.hex)
		if k, ok := peekKind(raw); !ok || k != v.entry.Kind {
			t.Errorf("%s: peeked kind %d (%v), want %d", v.name, k, ok, v.entry.Kind)
		}
	}
	for _, h := range []string{"", "a0", "a1" + "01" + "01", "a1" + "00" + "18" + "20", "83010203", "bf" + "0001" + "ff"} {
		raw, _ := hex.DecodeString(h)
		if k, ok := peekKind(raw); ok {
			t.Errorf("%q: peeked kind %d, want unknown", h, k)
		}
	}
}

func TestDecodeEntryRefuses(t *testing.T) {
	admit := "a5" + "0001" + "015820" + strings.Repeat("ab", 32) + "0202" + "036174" + "07426869"
	cases := []struct{ name, hex, want string }{
		{"unknown kind", "a1" + "0009", "unknown kind 9"},
		{"unknown field", "a4" + "0002" + "0807" + "0902" + "0c01", "unknown field"},
		{"empty batch", "a2" + "0004" + "0b80", "0 entries"},
		{"batch in a deliver", "a4" + "0002" + "0807" + "0902" + "0b81" + "a3" + "0002" + "0807" + "0902", "a batch's entries"},
		{"batch with a seq", "a3" + "0004" + "0807" + "0b81" + "a3" + "0002" + "0807" + "0902", "another kind's fields"},
		{"settle in a batch", "a2" + "0004" + "0b81" + "a2" + "0003" + "0a81" + "01", "kind 3, want ADMIT or DELIVER"},
		{"batch in a batch", "a2" + "0004" + "0b81" + "a2" + "0004" + "0b81" + "a3" + "0002" + "0807" + "0902", "max nested level"},
		{"streamed body in a batch", "a2" + "0004" + "0b81" + "a4" + "0001" + "015820" + strings.Repeat("ab", 32) + "02191388" + "0463612f62",
			"must be its own entry"},
		{"bad entry in a batch", "a2" + "0004" + "0b81" + "a3" + "0002" + "0800" + "0901", "entry 0: log entry DELIVER: seq 0"},
		{"duplicate key", "a3" + "0002" + "0807" + "0807", "duplicate"},
		{"indefinite map", "bf" + "0002" + "0807" + "0902" + "ff", "indefinite"},
		{"a tag", "a1" + "00" + "c001", "tag"},
		{"short digest", "a3" + "0001" + "0141ab" + "0200", "digest of 1 bytes"},
		{"body not inline", "a3" + "0001" + "015820" + strings.Repeat("ab", 32) + "0202", "must be inline"},
		{"body length lies", strings.Replace(admit, "0202", "0203", 1), "must be inline"},
		{"deliver seq 0", "a3" + "0002" + "0800" + "0901", "seq 0, attempt 1"},
		{"deliver with a digest", "a4" + "0002" + "0807" + "0902" + "0141ab", "another kind's fields"},
		{"empty settle", "a2" + "0003" + "0a80", "0 seqs"},
		{"settle seq 0", "a2" + "0003" + "0a81" + "00", "seq 0"},
		{"not a map", "83010203", "cannot unmarshal"},
		{"bad utf-8 topic", strings.Replace(admit, "036174", "0361ff", 1), "UTF-8"},
		{"truncated", admit[:len(admit)-2], "unexpected EOF"},
	}
	for _, tc := range cases {
		raw, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatalf("%s: bad test hex: %v", tc.name, err)
		}
		_, err = DecodeEntry(raw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestEntryBounds(t *testing.T) {
	long := strings.Repeat("x", 257)
	if _, err := (&Entry{Kind: EntryAdmit, Digest: digest32, Topic: &long}).Encode(); err == nil || !strings.Contains(err.Error(), "topic of 257 bytes") {
		t.Fatalf("an oversized topic: %v", err)
	}
	seqs := make([]uint64, MaxSettleBatch+1)
	for i := range seqs {
		seqs[i] = uint64(i + 1)
	}
	if _, err := (&Entry{Kind: EntrySettle, Seqs: seqs}).Encode(); err == nil {
		t.Fatal("a SETTLE past the batch bound was encoded")
	}
	if _, err := (&Entry{Kind: EntryAdmit, Digest: digest32, Length: MaxInlineBody + 1, Body: []byte{1}}).Encode(); err == nil {
		t.Fatal("a large body was inlined")
	}
	full := &Entry{Kind: EntryAdmit, Digest: digest32, Length: MaxInlineBody, Body: make([]byte, MaxInlineBody),
		Topic: text(strings.Repeat("t", 256)), ContentType: text(strings.Repeat("c", 256)),
		Traceparent: text(strings.Repeat("p", 128)), Tracestate: text(strings.Repeat("s", 512))}
	raw, err := full.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeEntry(raw); err != nil {
		t.Fatalf("the largest legal entry (%d bytes) is refused: %v", len(raw), err)
	}
	if _, err := DecodeEntry(make([]byte, maxBatchBytes+1)); err == nil {
		t.Fatal("an entry past maxBatchBytes was read")
	}
	// The largest batch a proposer makes: full entries while it holds
	// less than MaxBatchBytes.
	batch := Entry{Kind: EntryBatch}
	for size := 0; size < MaxBatchBytes; size += full.Size() {
		batch.Batch = append(batch.Batch, *full)
	}
	raw, err = batch.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeEntry(raw); err != nil {
		t.Fatalf("the largest batch a proposer makes (%d entries, %d bytes) is refused: %v", len(batch.Batch), len(raw), err)
	}
	for len(batch.Batch) < MaxBatch {
		batch.Batch = append(batch.Batch, *full)
	}
	if _, err := batch.Encode(); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("a batch of %d entries at their caps: %v, want it refused by size", len(batch.Batch), err)
	}
	small := Entry{Kind: EntryBatch}
	for range MaxBatch + 1 {
		small.Batch = append(small.Batch, Entry{Kind: EntryDeliver, Seq: 1, Attempt: 1})
	}
	if _, err := small.Encode(); err == nil || !strings.Contains(err.Error(), "257 entries") {
		t.Fatalf("a batch past MaxBatch: %v", err)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	for _, v := range entryVectors {
		raw, _ := hex.DecodeString(v.hex)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeEntry(data)
		if err != nil {
			return
		}
		if k, ok := peekKind(data); ok && k != e.Kind {
			t.Fatalf("peeked kind %d, decoded %d", k, e.Kind)
		}
		again, err := e.Encode()
		if err != nil {
			t.Fatalf("a decoded entry does not encode: %v", err)
		}
		back, err := DecodeEntry(again)
		if err != nil || !reflect.DeepEqual(back, e) {
			t.Fatalf("re-encoding changed the entry: %+v vs %+v (%v)", back, e, err)
		}
	})
}
