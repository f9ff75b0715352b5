package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func sampleRecords() []record {
	full := Meta{
		Topic: bytes.Repeat([]byte("t"), MaxTopicBytes), HasTopic: true,
		ContentType: bytes.Repeat([]byte("c"), MaxContentTypeBytes), HasContentType: true,
		Traceparent: bytes.Repeat([]byte("p"), MaxTraceparentBytes), HasTraceparent: true,
		Tracestate: bytes.Repeat([]byte("s"), MaxTracestateBytes), HasTracestate: true,
	}
	return []record{
		{typ: recAdmit, seq: 1, digest: [32]byte{1, 2, 3}, bodyLen: 64},
		{typ: recAdmit, seq: 1 << 40, digest: [32]byte{31: 9}, bodyLen: 1 << 33, meta: full},
		{typ: recAdmit, seq: 7, meta: Meta{Topic: []byte{}, HasTopic: true, Tracestate: []byte("k=v"), HasTracestate: true}},
		{typ: recSettle, seq: 42},
		{typ: recAttempt, seq: 42, count: 3},
		{typ: recAdmitInline, seq: 8, digest: [32]byte{4}, bodyLen: 3, inline: []byte("abc")},
		{typ: recAdmitInline, seq: 9, inline: []byte{}},
		{typ: recAdmitInline, seq: 10, bodyLen: MaxInlineBodyBytes, inline: bytes.Repeat([]byte("b"), MaxInlineBodyBytes), meta: full},
		{typ: recQuarantine, seq: 11, reason: []byte("payload does not match its digest")},
		{typ: recQuarantine, seq: 12, reason: []byte{}},
		{typ: recQuarantine, seq: 13, reason: bytes.Repeat([]byte("r"), MaxQuarantineReasonBytes)},
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, want := range sampleRecords() {
		frame := appendRecord(nil, &want)
		if len(want.inline) == MaxInlineBodyBytes && want.meta.HasTracestate && len(want.meta.Tracestate) == MaxTracestateBytes && len(frame) != maxFrameLen {
			t.Errorf("the largest ADMIT_INLINE is %d bytes, maxFrameLen says %d", len(frame), maxFrameLen)
		}
		got, n, err := decodeRecord(append(frame, 0xAA)) // trailing bytes belong to the next frame
		if err != nil || n != len(frame) {
			t.Fatalf("decode %+v: n=%d err=%v", want, n, err)
		}
		if got.typ != want.typ || got.seq != want.seq || got.count != want.count || got.digest != want.digest ||
			got.bodyLen != want.bodyLen || !metaSame(got.meta, want.meta) || !bytes.Equal(got.reason, want.reason) {
			t.Fatalf("round trip: got %+v, want %+v", got, want)
		}
	}
}

func metaSame(a, b Meta) bool {
	af, bf := a.fields(), b.fields()
	for i := range af {
		if *af[i].has != *bf[i].has || !bytes.Equal(*af[i].val, *bf[i].val) {
			return false
		}
	}
	return true
}

// reframe fixes up length and CRC after a test edits a frame's body.
func reframe(frame []byte) []byte {
	binary.LittleEndian.PutUint32(frame, uint32(len(frame)-frameHeaderLen))
	binary.LittleEndian.PutUint32(frame[4:], crc32c(frame[8:]))
	return frame
}

func TestDecodeRecordErrors(t *testing.T) {
	admit := appendRecord(nil, &sampleRecords()[0])
	settle := appendRecord(nil, &sampleRecords()[3])
	inline := appendRecord(nil, &sampleRecords()[5])
	quarantine := appendRecord(nil, &sampleRecords()[8])
	edit := func(src []byte, f func(b []byte) []byte) []byte { return f(append([]byte(nil), src...)) }
	tests := []struct {
		name  string
		frame []byte
		want  string
	}{
		{"empty", nil, errTruncated.Error()},
		{"header only", admit[:frameHeaderLen], errTruncated.Error()},
		{"body cut", admit[:len(admit)-1], errTruncated.Error()},
		{"length over the cap", edit(admit, func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b, maxRecordBody+1)
			return b
		}), "exceeds the cap"},
		{"bit flip in body", edit(admit, func(b []byte) []byte { b[20] ^= 1; return b }), "checksum"},
		{"bit flip in type", edit(admit, func(b []byte) []byte { b[8] ^= 1; return b }), "checksum"},
		{"unknown type", edit(settle, func(b []byte) []byte { b[8] = 9; return reframe(b) }), "unknown record type 9"},
		{"settle too long", edit(settle, func(b []byte) []byte { return reframe(append(b, 0)) }), "SETTLE body is 9 bytes"},
		{"admit shorter than fixed", edit(admit, func(b []byte) []byte { return reframe(b[:frameHeaderLen+40]) }), "shorter than its fixed fields"},
		{"admit trailing byte", edit(admit, func(b []byte) []byte { return reframe(append(b, 0)) }), "trailing"},
		{"admit topic over cap", edit(admit, func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[frameHeaderLen+48:], MaxTopicBytes+1)
			return reframe(append(b, make([]byte, MaxTopicBytes+1)...))
		}), "topic is 257 bytes"},
		{"inline body shorter than body_len", edit(inline, func(b []byte) []byte { return reframe(b[:len(b)-1]) }),
			"ADMIT_INLINE holds 2 body bytes, body_len says 3"},
		{"inline body_len over the inline cap", edit(inline, func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[frameHeaderLen+40:], MaxInlineBodyBytes+1)
			return reframe(b)
		}), "exceeds the inline cap"},
		{"quarantine shorter than fixed", edit(quarantine, func(b []byte) []byte { return reframe(b[:frameHeaderLen+9]) }),
			"QUARANTINE body is 9 bytes, shorter"},
		{"quarantine reason past body", edit(quarantine, func(b []byte) []byte { return reframe(b[:len(b)-1]) }),
			"QUARANTINE body is 42 bytes with a 33-byte reason"},
		{"quarantine reason over the cap", edit(quarantine, func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[frameHeaderLen+8:], MaxQuarantineReasonBytes+1)
			return reframe(append(b[:frameHeaderLen+10], make([]byte, MaxQuarantineReasonBytes+1)...))
		}), "257-byte reason (cap 256)"},
		{"admit string past body", edit(admit, func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[frameHeaderLen+48:], 10)
			return reframe(b)
		}), "ends inside the topic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeRecord(tc.frame)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decode = %v, want an error containing %q", err, tc.want)
			}
			if truncated := errors.Is(err, errTruncated); truncated != (tc.want == errTruncated.Error()) {
				t.Fatalf("truncated = %v for %v", truncated, err)
			}
		})
	}
}

// TestQuarantineRecordGolden pins the on-disk bytes of a QUARANTINE
// record: u32 len, u32 crc32c(type ‖ body), type 5, seq u64, u16 reason
// length, reason.
func TestQuarantineRecordGolden(t *testing.T) {
	got := appendRecord(nil, &record{typ: recQuarantine, seq: 0x0102, reason: []byte("bad")})
	want := []byte{
		13, 0, 0, 0, // body length
		0x9c, 0xc5, 0x57, 0x33, // crc32c of the 14 bytes from the type on
		5,                      // QUARANTINE
		2, 1, 0, 0, 0, 0, 0, 0, // seq 0x0102
		3, 0, 'b', 'a', 'd', // reason
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("QUARANTINE frame\n got %x\nwant %x", got, want)
	}
}

// FuzzJournalRecord feeds arbitrary bytes to the decoder: it must never
// panic or over-allocate, and whatever it accepts must re-encode to exactly
// the bytes it consumed.
func FuzzJournalRecord(f *testing.F) {
	for _, r := range sampleRecords() {
		f.Add(appendRecord(nil, &r))
	}
	f.Add([]byte{})
	f.Add(make([]byte, frameHeaderLen))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, n, err := decodeRecord(data)
		if err != nil {
			return
		}
		if n > len(data) || n > maxFrameLen {
			t.Fatalf("consumed %d bytes of %d", n, len(data))
		}
		if again := appendRecord(nil, &r); !bytes.Equal(again, data[:n]) {
			t.Fatalf("re-encoding differs:\n got %x\nwant %x", again, data[:n])
		}
	})
}
