package wire

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The golden vectors of PROTOCOL.md §15, verbatim.

var testDigest = sha256.Sum256([]byte("test"))

// goldenFrames is §15.1: each frame must encode to exactly these bytes and
// decode to exactly this value.
var goldenFrames = []struct {
	n    int
	hex  string
	kind Kind
	want HeaderAppender
}{
	{1, "57 01 05 A1 00 62 2F 74", KindData, &Data{Endpoint: Some("/t")}},
	{2, "57 01 01 A0", KindData, &Data{}},
	{3, "57 01 03 A1 08 02", KindData, &Data{Achieved: Some(LevelAccepted)}},
	{4, "57 00 10 A5 00 81 00 01 19 40 00 02 19 04 00 03 80 04 80", KindHello, ptr(DefaultHello())},
	{5, "57 00 18 A7 00 81 00 01 19 40 00 02 19 04 00 03 80 04 80 05 A1 04 01 06 A1 04 01", KindHello,
		ptr(helloWith(func(h *Hello) { h.Offered.Ordering, h.Required.Ordering = 1, 1 }))},
	{6, "57 00 11 A5 00 81 00 01 19 40 00 02 19 04 00 03 81 01 04 80", KindHello,
		ptr(helloWith(func(h *Hello) { h.Capabilities = []uint64{CapabilityDatagram} }))},
	{7, "57 02 03 A1 00 05", KindError, &ErrorFrame{Code: ErrorNoReply}},
	{8, "57 01 0E A2 00 63 2F 6D 64 05 66 70 78 2E 65 75 72", KindData, &Data{Endpoint: Some("/md"), Topic: Some("px.eur")}},
	{9, "57 01 0C A2 00 63 2F 6D 64 05 64 70 78 2E 2A", KindData, &Data{Endpoint: Some("/md"), Topic: Some("px.*")}},
	{10, "57 01 07 A2 00 62 2F 74 06 01", KindData, &Data{Endpoint: Some("/t"), Sequence: Some[uint64](1)}},
	{11, "57 01 2A A3 00 62 2F 74 06 01 07 58 20 9F 86 D0 81 88 4C 7D 65 9A 2F EA A0 C5 5A D0 15 A3 BF 4F 1B 2B 0B 82 2C D1 5D 6C 15 B0 F0 0A 08",
		KindData, &Data{Endpoint: Some("/t"), Sequence: Some[uint64](1), Producer: Some(testDigest)}},
	{12, "57 01 0A A3 00 62 2F 74 09 01 0A 81 02", KindData,
		&Data{Endpoint: Some("/t"), ReportID: Some[uint64](1), Report: []uint64{2}}},
	{13, "57 01 0D A4 00 62 2F 74 09 01 0A 82 03 11 0B 01", KindData,
		&Data{Endpoint: Some("/t"), ReportID: Some[uint64](1), Report: []uint64{3, 17}, ReportMode: 1}},
	{14, "57 01 07 A2 00 62 2F 74 0D 05", KindData, &Data{Endpoint: Some("/t"), Segment: Some[uint64](5)}},
	{15, "57 01 09 A3 00 62 2F 74 0D 05 0E 02", KindData, &Data{Endpoint: Some("/t"), Segment: Some[uint64](5), Layer: 2}},
	{16, "57 03 0B A2 00 63 2F 6D 64 01 63 70 78 2E", KindSubscribe, &Subscribe{Endpoint: "/md", Filter: "px."}},
	{17, "57 04 0B A2 00 63 2F 6D 64 01 63 70 78 2E", KindUnsubscribe, &Subscribe{Endpoint: "/md", Filter: "px."}},
	{18, "57 03 0E A2 00 63 2F 6D 64 01 66 70 78 2E 65 75 72", KindSubscribe, &Subscribe{Endpoint: "/md", Filter: "px.eur"}},
	{19, "57 03 16 A2 00 63 2F 6D 64 01 6E 73 65 6E 73 6F 72 73 2E 2A 2E 74 65 6D 70", KindSubscribe,
		&Subscribe{Endpoint: "/md", Filter: "sensors.*.temp"}},
	{20, "57 03 0D A2 00 63 2F 6D 64 01 65 63 74 6C 2E 23", KindSubscribe, &Subscribe{Endpoint: "/md", Filter: "ctl.#"}},
	{21, "57 03 08 A2 00 63 2F 6D 64 01 60", KindSubscribe, &Subscribe{Endpoint: "/md", Filter: ""}},
	{22, "57 03 0B A3 00 62 2F 74 01 61 61 02 18 96", KindSubscribe, &Subscribe{Endpoint: "/t", Filter: "a", MaxAgeMs: Some[uint64](150)}},
	{23, "57 03 0A A3 00 62 2F 74 01 61 61 03 01", KindSubscribe, &Subscribe{Endpoint: "/t", Filter: "a", MaxLayer: Some[uint64](1)}},
	{24, "57 05 12 A3 00 65 2F 6A 6F 62 73 01 66 70 78 2E 65 75 72 02 05", KindCredit, &Credit{Endpoint: "/jobs", Filter: "px.eur", Limit: 5}},
	{25, "57 05 0C A3 00 65 2F 6A 6F 62 73 01 60 02 00", KindCredit, &Credit{Endpoint: "/jobs", Filter: "", Limit: 0}},
	{26, "57 06 03 A1 00 01", KindCursor, &CursorHead{ReportID: 1}},
	{27, "57 07 07 A2 00 62 2F 76 01 07", KindFlow, &Flow{Endpoint: "/v", Flow: 7}},
	{28, "57 02 14 A3 00 06 01 6D 77 65 69 64 61 3A 2F 2F 68 3A 31 2F 71 02 03", KindError,
		&ErrorFrame{Code: ErrorNotLeader, Leader: Some("weida://h:1/q"), Term: Some[uint64](3)}},
	{29, "57 02 07 A2 00 06 02 19 01 2C", KindError, &ErrorFrame{Code: ErrorNotLeader, Term: Some[uint64](300)}},
}

func ptr[T any](v T) *T { return &v }

func helloWith(edit func(*Hello)) Hello {
	h := DefaultHello()
	edit(&h)
	return h
}

func TestGoldenFrames(t *testing.T) {
	if len(goldenFrames) != 29 {
		t.Fatalf("%d frame vectors, §15.1 has 29", len(goldenFrames))
	}
	for _, v := range goldenFrames {
		t.Run(v.kind.String()+"/"+itoa(uint64(v.n)), func(t *testing.T) {
			want := unhex(t, v.hex)
			if got := AppendFrame(nil, v.kind, v.want); !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got % X\nwant % X", got, want)
			}
			p, n, err := ParsePreamble(want, DefaultMaxHeaderBytes)
			if err != nil {
				t.Fatalf("preamble: %v", err)
			}
			if p.Kind != v.kind || p.HeaderLen != uint64(len(want)-n) {
				t.Fatalf("preamble = %+v (len %d), want kind %v and the rest as header", p, n, v.kind)
			}
			got, err := decodeAs(p.Kind, want[n:])
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, v.want) {
				t.Fatalf("decode:\n got %+v\nwant %+v", got, v.want)
			}
		})
	}
}

func TestGoldenProducerIsSHA256OfTest(t *testing.T) {
	want := unhex(t, "9F 86 D0 81 88 4C 7D 65 9A 2F EA A0 C5 5A D0 15 A3 BF 4F 1B 2B 0B 82 2C D1 5D 6C 15 B0 F0 0A 08")
	if !bytes.Equal(testDigest[:], want) {
		t.Fatalf("sha256(\"test\") = % X", testDigest)
	}
}

// §15.2: non-frame byte strings.
func TestGoldenCursorRecords(t *testing.T) {
	for _, v := range []struct {
		hex  string
		want CursorRecord
	}{
		{"02 40 40", CursorRecord{Level: LevelAccepted, Offset: 64}},
		{"03 80 0F 42 40", CursorRecord{Level: LevelStored, Offset: 1000000}},
	} {
		b := unhex(t, v.hex)
		if got := AppendCursorRecord(nil, v.want); !bytes.Equal(got, b) {
			t.Errorf("encode %+v = % X, want %s", v.want, got, v.hex)
		}
		got, n, err := ParseCursorRecord(b)
		if err != nil || n != len(b) || got != v.want {
			t.Errorf("parse %s = %+v, %d, %v", v.hex, got, n, err)
		}
	}
}

func TestGoldenDatagram(t *testing.T) {
	b := unhex(t, "07 68 69")
	if got := AppendDatagram(nil, 7, []byte("hi")); !bytes.Equal(got, b) {
		t.Fatalf("encode = % X", got)
	}
	flow, payload, err := ParseDatagram(b)
	if err != nil || flow != 7 || string(payload) != "hi" {
		t.Fatalf("parse = %d %q %v", flow, payload, err)
	}
}

// repeatHex repeats one hex octet n times.
func repeatHex(octet string, n int) string { return strings.Repeat(octet+" ", n) }

// seventeenLevels is a report_id plus a report of the 17 levels 16..=32.
func seventeenLevels() string {
	s := "A2 09 01 0A 91"
	for v := uint64(16); v <= 32; v++ {
		s += " " + hexOf(appendHead(nil, majorUint, v))
	}
	return s
}

// hexOf renders bytes as the spec writes them: "A1 00 05".
func hexOf(b []byte) string { return fmt.Sprintf("% X", b) }

// goldenRejected is §15.3 (headers): each must be a violation, for the
// stated reason.
var goldenRejected = []struct {
	as   Kind
	hex  string
	want string
}{
	{KindData, "A1 08 06", "key 8 (achieved): value 6 is undefined"},
	{KindData, "A1 0A 81 02", "key 10 (report) without report_id"},
	{KindData, "A1 09 01", "key 9 (report_id) without report"},
	{KindData, "A2 09 01 0A 82 03 02", "levels not strictly ascending"},
	{KindData, "A2 09 01 0A 82 02 02", "level 2 repeated"},
	{KindData, "A2 09 01 0A 81 0F", "level 15 is reserved"},
	{KindData, "A3 09 01 0A 81 02 0B 02", "key 11 (report_mode): value 2 is undefined"},
	{KindData, seventeenLevels(), "key 10 (report): array declares 17 items, more than 16"},
	{KindData, "A2 0D 05 0E 10", "key 14 (layer): value 16 is undefined"},
	{KindData, "A1 0E 01", "key 14 (layer) without segment"},
	{KindData, "A1 07 58 21 " + repeatHex("AB", 33), "key 7 (producer): byte string of 33 bytes, want exactly 32"},
	{KindData, "A1 07 50 " + repeatHex("AB", 16), "key 7 (producer): byte string of 16 bytes, want exactly 32"},
	{KindData, "A1 06 61 37", "key 6 (sequence): expected uint, got text string"},
	{KindSubscribe, "A3 00 62 2F 74 01 61 61 03 10", "key 3 (max_layer): value 16 is undefined"},
	{KindCredit, "A2 00 62 2F 71 01 60", "key 2 (limit) is required but missing"},
	{KindCursor, "A0", "key 0 (report_id) is required but missing"},
	{KindFlow, "A1 00 62 2F 76", "key 1 (flow) is required but missing"},
	{KindError, "A1 01 63 77 68 79", "key 0 (code) is required but missing"},
	{KindData, "A2 01 01 01 02", "duplicate key 1"},
	{KindData, "A3 02 61 74 01 01 03 61 70", "key 1 after key 2"},
	{KindData, "A1 20 01", "a key is a negative int"},
	{KindData, "BF 01 01 FF", "indefinite-length"},
	{KindError, "A1 00 02 FF", "bytes left after the map"},
	{KindData, "A1 18 32 D8 18 01", "CBOR tag"},
	{KindData, "A1 18 32 " + repeatHex("81", 9) + "01", "key 50 (unknown, skipped): skipped value nests more than 8"},
	{KindHello, "A1 00 9A FF FF FF FF", "HELLO header: a container declares more items"},
}

func TestGoldenRejectedHeaders(t *testing.T) {
	for _, v := range goldenRejected {
		t.Run(v.as.String()+"/"+v.hex, func(t *testing.T) {
			_, err := decodeAs(v.as, unhex(t, v.hex))
			wantViolation(t, err, v.want)
		})
	}
}

func TestGoldenRejectedFilters(t *testing.T) {
	for _, f := range []string{"px*", "*px", "p*x.eur", "px.e*ur", "#.px", "px.#.eur", "px#"} {
		wantViolation(t, ValidateFilter(f), "filter")
		sub := Subscribe{Endpoint: "/md", Filter: f}
		_, err := DecodeSubscribe(sub.AppendHeader(nil))
		wantViolation(t, err, "SUBSCRIBE key 1 (filter)")
		credit := Credit{Endpoint: "/q", Filter: f, Limit: 1}
		_, err = DecodeCredit(credit.AppendHeader(nil))
		wantViolation(t, err, "CREDIT key 1 (filter)")
	}
}

func TestGoldenRejectedPreambles(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{"58 01 00", "magic"},
		{"57 09 00", "frame kind 9"},
		{"57 01 80 10 00 00", "header_len 1048576 exceeds max_header_bytes 16384"},
	} {
		_, _, err := ParsePreamble(unhex(t, v.hex), DefaultMaxHeaderBytes)
		wantViolation(t, err, v.want)
		_, _, err = ReadHeader(bytes.NewReader(unhex(t, v.hex)), DefaultMaxHeaderBytes, nil)
		wantViolation(t, err, v.want)
	}
}

func TestGoldenRejectedCursorRecord(t *testing.T) {
	_, _, err := ParseCursorRecord(unhex(t, "0F 00"))
	wantViolation(t, err, "level 15 is reserved")
}

// §15.3 "Accepted edge cases".
func TestGoldenAcceptedHeaders(t *testing.T) {
	for _, v := range []struct {
		as   Kind
		hex  string
		want HeaderAppender
	}{
		{KindData, "A2 00 62 2F 74 18 3F 82 07 A1 01 F5", &Data{Endpoint: Some("/t")}},
		{KindData, "A2 01 05 19 03 E8 66 66 75 74 75 72 65", &Data{ContentLen: Some[uint64](5)}},
		{KindData, "A1 18 32 " + repeatHex("81", 8) + "01", &Data{}},
		{KindError, "A1 00 18 63", &ErrorFrame{Code: 99}},
	} {
		got, err := decodeAs(v.as, unhex(t, v.hex))
		if err != nil || !reflect.DeepEqual(got, v.want) {
			t.Errorf("%v %s = %+v, %v; want %+v", v.as, v.hex, got, err, v.want)
		}
	}
}

func TestGoldenAcceptedFilters(t *testing.T) {
	for _, f := range []string{"", "#", "px", "px.eur", "px.*", "*.eur", "sensors.*.temp", "px.#", "px.", "a..b"} {
		if err := ValidateFilter(f); err != nil {
			t.Errorf("ValidateFilter(%q) = %v", f, err)
		}
	}
}

func TestGoldenAcceptedPreambles(t *testing.T) {
	for _, v := range []struct {
		hex  string
		want Preamble
	}{
		{"57 02 C0 00 00 00 00 00 00 05", Preamble{Kind: KindError, HeaderLen: 5}},
		{"57 00 80 00 40 00", Preamble{Kind: KindHello, HeaderLen: 16384}},
	} {
		b := unhex(t, v.hex)
		got, n, err := ParsePreamble(b, DefaultMaxHeaderBytes)
		if err != nil || got != v.want || n != len(b) {
			t.Errorf("ParsePreamble(%s) = %+v, %d, %v", v.hex, got, n, err)
		}
	}
}

func TestGoldenRecordPrefixesNeedMore(t *testing.T) {
	for _, rec := range []string{"02 40 40", "03 80 0F 42 40", "11 C0 00 00 00 00 00 00 01"} {
		b := unhex(t, rec)
		for i := range len(b) {
			if _, _, err := ParseCursorRecord(b[:i]); !errors.Is(err, ErrNeedMore) {
				t.Errorf("prefix % X of %s: %v, want ErrNeedMore", b[:i], rec, err)
			}
		}
	}
}

// §15.4: varints.
func TestGoldenVarints(t *testing.T) {
	for _, v := range []struct {
		hex     string
		want    uint64
		minimal bool
	}{
		{"25", 37, true},
		{"40 25", 37, false},
		{"7B BD", 15293, true},
		{"9D 7F 3E 7D", 494878333, true},
		{"C2 19 7C 5E FF 14 E8 8C", 151288809941952652, true},
		{"80 00 40 00", 16384, true},
	} {
		b := unhex(t, v.hex)
		got, n, err := ParseVarint(b)
		if err != nil || got != v.want || n != len(b) {
			t.Errorf("ParseVarint(%s) = %d, %d, %v; want %d", v.hex, got, n, err, v.want)
		}
		if enc := AppendVarint(nil, v.want); v.minimal != bytes.Equal(enc, b) {
			t.Errorf("AppendVarint(%d) = % X (vector %s, minimal %v)", v.want, enc, v.hex, v.minimal)
		}
	}
}

func TestGoldenVarintBoundaries(t *testing.T) {
	for _, v := range []struct {
		value uint64
		size  int
	}{{63, 1}, {64, 2}, {16383, 2}, {16384, 4}, {1073741823, 4}, {1073741824, 8}} {
		if got := len(AppendVarint(nil, v.value)); got != v.size || VarintLen(v.value) != v.size {
			t.Errorf("%d encodes in %d bytes (VarintLen %d), want %d", v.value, got, VarintLen(v.value), v.size)
		}
	}
}
