package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// Golden vectors for REPORT (§8.9), in the style of §15: the spec gives
// none for kind 8, so these are this project's.

func TestGoldenReportHead(t *testing.T) {
	want := unhex(t, "57 08 01 A0")
	if got := AppendFrame(nil, KindReport, ReportHead{}); !bytes.Equal(got, want) {
		t.Fatalf("encode: got % X, want % X", got, want)
	}
	k, hdr, err := ReadHeader(bytes.NewReader(want), DefaultMaxHeaderBytes, nil)
	if err != nil || k != KindReport {
		t.Fatalf("ReadHeader: kind %v, %v", k, err)
	}
	if _, err := DecodeReportHead(hdr); err != nil {
		t.Fatalf("decode: %v", err)
	}
	// Unknown keys in the head are skipped like everywhere (§7.2).
	if _, err := DecodeReportHead(unhex(t, "A1 18 40 61 78")); err != nil {
		t.Fatalf("head with an unknown key: %v", err)
	}
}

var goldenReportRecords = []struct {
	name string
	hex  string
	want PathReport
}{
	{"empty", "01 A0", PathReport{}},
	{"rtt and min rtt", "09 A2 00 19 05 DC 01 19 03 84", PathReport{RTTMicros: Some[uint64](1500), MinRTTMicros: Some[uint64](900)}},
	{"rx_bytes, key 11", "05 A1 0B 19 40 00", PathReport{RxBytes: Some[uint64](16384)}},
	{"every key", "2C AC 00 18 96 01 18 64 02 19 30 00 03 01 04 02 05 19 04 B0 06 18 C8 07 19 05 00 08 18 C9 09 1A 00 01 00 00 0A 18 CA 0B 1A 00 02 00 00",
		PathReport{RTTMicros: Some[uint64](150), MinRTTMicros: Some[uint64](100), CongestionWindow: Some[uint64](12288),
			CongestionEvents: Some[uint64](1), LostPackets: Some[uint64](2), LostBytes: Some[uint64](1200), SentPackets: Some[uint64](200),
			CurrentMTU: Some[uint64](1280), TxDatagrams: Some[uint64](201), TxBytes: Some[uint64](65536),
			RxDatagrams: Some[uint64](202), RxBytes: Some[uint64](131072)}},
}

func TestGoldenReportRecords(t *testing.T) {
	for _, v := range goldenReportRecords {
		t.Run(v.name, func(t *testing.T) {
			want := unhex(t, v.hex)
			if got := AppendReportRecord(nil, &v.want); !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got % X\nwant % X", got, want)
			}
			got, n, err := ParseReportRecord(want)
			if err != nil || n != len(want) || !reflect.DeepEqual(got, v.want) {
				t.Fatalf("decode: %+v in %d bytes, %v; want %+v in %d", got, n, err, v.want, len(want))
			}
		})
	}
}

// An unknown key is skipped, whatever its value (§7.2).
func TestReportRecordSkipsUnknownKeys(t *testing.T) {
	got, n, err := ParseReportRecord(unhex(t, "07 A2 01 0A 18 40 61 78"))
	if err != nil || n != 8 || got != (PathReport{MinRTTMicros: Some[uint64](10)}) {
		t.Fatalf("got %+v in %d bytes, %v", got, n, err)
	}
}

// The §8.9 violations a record can commit on its own.
var rejectedReportRecords = []struct{ name, hex, want string }{
	{"len 257 > 256", "41 01", "257 bytes exceeds its cap of 256"},
	{"len 2^62-1", "FF FF FF FF FF FF FF FF", "exceeds its cap of 256"},
	{"len 0", "00", "REPORT record"},
	{"an array, not a map", "02 81 00", "REPORT record"},
	{"a uint, not a map", "01 05", "REPORT record"},
	{"negative key", "03 A1 20 01", "REPORT record"},
	{"text key", "04 A1 61 78 01", "REPORT record"},
	{"rtt_us as text", "04 A1 00 61 78", "REPORT record key 0 (rtt_us)"},
	{"rx_bytes negative", "03 A1 0B 20", "REPORT record key 11 (rx_bytes)"},
	{"duplicate key", "05 A2 00 01 00 02", "REPORT record"},
	{"bytes after the map", "04 A1 00 01 00", "REPORT record"},
	{"indefinite-length map", "04 BF 00 01 FF", "REPORT record"},
}

func TestRejectedReportRecords(t *testing.T) {
	for _, v := range rejectedReportRecords {
		t.Run(v.name, func(t *testing.T) {
			_, _, err := ParseReportRecord(unhex(t, v.hex))
			wantViolation(t, err, v.want)
		})
	}
}

// A length over the cap fails before its body arrives: no reader ever
// waits for, or buffers, more than 256 bytes of one record.
func TestReportRecordCapBeforeBody(t *testing.T) {
	_, _, err := ParseReportRecord(unhex(t, "41 01 A0"))
	wantViolation(t, err, "exceeds its cap")
	if _, _, err := ParseReportRecord(unhex(t, "41 00 A0")); !errors.Is(err, ErrNeedMore) {
		t.Fatalf("len 256 with one byte of body: %v, want ErrNeedMore", err)
	}
}

func TestReportRecordCutByFIN(t *testing.T) {
	part := unhex(t, "09 A2 00 19")
	if _, _, err := ParseReportRecord(part); !errors.Is(err, ErrNeedMore) {
		t.Fatalf("partial record: %v, want ErrNeedMore", err)
	}
	wantViolation(t, CheckReportRecordEnd(part), "cut short by FIN after 4 bytes")
	if err := CheckReportRecordEnd(nil); err != nil {
		t.Fatalf("clean end: %v", err)
	}
}

// §15.3's "preamble 57 08 00": the preamble parses (kind 8 exists), but an
// empty head is not the map A0, so the stream is refused wherever it opens.
func TestReportHeadMustBeAMap(t *testing.T) {
	k, hdr, err := ReadHeader(bytes.NewReader(unhex(t, "57 08 00")), DefaultMaxHeaderBytes, nil)
	if err != nil || k != KindReport {
		t.Fatalf("ReadHeader: %v %v", k, err)
	}
	_, err = DecodeReportHead(hdr)
	wantViolation(t, err, "REPORT head")
	_, err = DecodeReportHead(unhex(t, "80"))
	wantViolation(t, err, "REPORT head")
}

func TestNegotiatePathReports(t *testing.T) {
	with := helloWith(func(h *Hello) { h.Capabilities = []uint64{CapabilityPathReport} })
	without := DefaultHello()
	for _, v := range []struct {
		ours, theirs Hello
		want         bool
	}{{with, with, true}, {with, without, false}, {without, with, false}} {
		a, err := Negotiate(&v.ours, &v.theirs)
		if err != nil || a.PathReports != v.want {
			t.Fatalf("%v / %v: PathReports %v, %v; want %v", v.ours.Capabilities, v.theirs.Capabilities, a.PathReports, err, v.want)
		}
	}
	req := helloWith(func(h *Hello) { h.RequiredCapabilities = []uint64{CapabilityPathReport} })
	_, err := Negotiate(&without, &req)
	var ne *NegotiationError
	if !errors.As(err, &ne) || ne.Step != StepCapabilities || !bytes.Contains([]byte(ne.Reason), []byte("2 (path_report)")) {
		t.Fatalf("required path_report against a peer without it: %v", err)
	}
}

func FuzzDecodeReportHead(f *testing.F) {
	fuzzDecoder[ReportHead](f, DecodeReportHead, KindReport)
}

func FuzzParseReportRecord(f *testing.F) {
	for _, v := range goldenReportRecords {
		f.Add(unhex(f, v.hex))
	}
	for _, v := range rejectedReportRecords {
		f.Add(unhex(f, v.hex))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, n, err := ParseReportRecord(b)
		if err != nil {
			if !errors.Is(err, ErrNeedMore) && !errors.Is(err, ErrProtocolViolation) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if n > len(b) || n > MaxReportRecordLen+2 {
			t.Fatalf("accepted %+v in %d of %d bytes", rec, n, len(b))
		}
		enc := AppendReportRecord(nil, &rec)
		if again, m, err := ParseReportRecord(enc); err != nil || again != rec || m != len(enc) {
			t.Fatalf("%+v re-encodes as % X", rec, enc)
		}
	})
}
