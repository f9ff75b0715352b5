package wire

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fullData sets every DATA key to a non-default value.
func fullData() Data {
	return Data{
		Endpoint:        Some("/jobs/resize"),
		ContentLen:      Some[uint64](1 << 20),
		ContentType:     Some("application/octet-stream"),
		Traceparent:     Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
		Tracestate:      Some("rojo=00f067aa0ba902b7"),
		Topic:           Some("px.eur"),
		Sequence:        Some[uint64](65536),
		Producer:        Some(testDigest),
		Achieved:        Some(LevelAccepted),
		ReportID:        Some[uint64](1),
		Report:          []uint64{LevelStored, 17},
		ReportMode:      1,
		DeliveryAttempt: Some[uint64](2),
		Segment:         Some[uint64](5),
		Layer:           2,
	}
}

func TestDataRoundTrip(t *testing.T) {
	for name, d := range map[string]Data{
		"empty":   {},
		"full":    fullData(),
		"caps":    {Endpoint: Some(strings.Repeat("e", CapEndpoint)), Tracestate: Some(strings.Repeat("s", CapTracestate))},
		"unicode": {Topic: Some("größe.€")},
		"app levels": {ReportID: Some[uint64](1 << 40),
			Report: []uint64{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, MaxVarint}},
	} {
		got, err := DecodeData(d.AppendHeader(nil))
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("%s: round trip = %+v, %v", name, got, err)
		}
	}
}

func TestDataEncoderOmitsDefaults(t *testing.T) {
	d := Data{ReportMode: 0, Layer: 0, DeliveryAttempt: Some[uint64](1), Report: []uint64{}}
	if got := hexOf(d.AppendHeader(nil)); got != "A0" {
		t.Fatalf("defaults encode to %s, want A0", got)
	}
}

func TestDataEncoderSortsReportWithoutTouchingIt(t *testing.T) {
	for _, v := range []struct{ report, want []uint64 }{
		{[]uint64{17, 3, 3, 2}, []uint64{2, 3, 17}},
		// More levels than the stack scratch holds, duplicates bringing it to 16.
		{[]uint64{5, 4, 3, 2, 1, 0, 24, 23, 22, 21, 20, 19, 18, 17, 16, 16, 16, 25},
			[]uint64{0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}},
	} {
		given := append([]uint64(nil), v.report...)
		d := Data{ReportID: Some[uint64](9), Report: given}
		got, err := DecodeData(d.AppendHeader(nil))
		if err != nil || !reflect.DeepEqual(got.Report, v.want) {
			t.Fatalf("%v encoded as %v, %v; want %v", v.report, got.Report, err, v.want)
		}
		if !reflect.DeepEqual(given, v.report) {
			t.Fatalf("the caller's report changed to %v", given)
		}
	}
}

func TestDataAcceptsDefaultsWrittenExplicitly(t *testing.T) {
	for _, v := range []struct {
		hex  string
		want Data
	}{
		{"A1 0A 80", Data{}}, // empty report, no id
		{"A1 0E 00", Data{}}, // layer 0 without segment
		{"A2 0D 05 0E 00", Data{Segment: Some[uint64](5)}}, // layer 0 with segment
		{"A1 0B 00", Data{}},                                                        // report_mode 0
		{"A1 0B 01", Data{ReportMode: 1}},                                           // report_mode without report
		{"A1 0C 00", Data{}},                                                        // delivery_attempt 0
		{"A1 0C 01", Data{}},                                                        // delivery_attempt 1 = first
		{"A1 0C 02", Data{DeliveryAttempt: Some[uint64](2)}},                        // possibly a duplicate
		{"A1 08 00", Data{Achieved: Some(LevelNone)}},                               // absent != 0
		{"A1 08 05", Data{Achieved: Some(LevelProcessed)}},                          // top of the ladder
		{"A2 09 00 0A 81 00", Data{ReportID: Some[uint64](0), Report: []uint64{0}}}, // level 0 (§17 item 19)
		{"A1 18 06 1B 00 00 00 00 00 00 00 01", Data{Sequence: Some[uint64](1)}},    // non-minimal
		{"A1 18 40 FB 7F F8 00 00 00 00 00 00", Data{}},                             // a NaN in an extension key
	} {
		got, err := DecodeData(unhex(t, v.hex))
		if err != nil || !reflect.DeepEqual(got, v.want) {
			t.Errorf("%s = %+v, %v; want %+v", v.hex, got, err, v.want)
		}
	}
}

func TestDataRejects(t *testing.T) {
	text := func(key string, n int) string {
		return "A1 " + key + " 79 " + hexOf([]byte{byte(n >> 8), byte(n)}) + " " + repeatHex("61", n)
	}
	for _, v := range []struct{ hex, want string }{
		{text("00", CapEndpoint+1), "key 0 (endpoint): text of 513 bytes exceeds its cap of 512"},
		{text("02", CapContentType+1), "key 2 (content_type): text of 257 bytes exceeds its cap of 256"},
		{text("03", CapTraceparent+1), "key 3 (traceparent): text of 129 bytes exceeds its cap of 128"},
		{text("04", CapTracestate+1), "key 4 (tracestate): text of 513 bytes exceeds its cap of 512"},
		{text("05", CapTopic+1), "key 5 (topic): text of 257 bytes exceeds its cap of 256"},
		{"A1 05 62 C3 28", "key 5 (topic): text is not valid UTF-8"},
		{"A1 00 42 2F 74", "key 0 (endpoint): expected text string, got byte string"},
		{"A1 07 78 20 " + repeatHex("61", 32), "key 7 (producer): expected byte string, got text string"},
		{"A1 0C 61 32", "key 12 (delivery_attempt): expected uint, got text string"},
		{"A1 01 F9 3C 00", "key 1 (content_len): expected uint, got float"},
		{"A1 01 F5", "key 1 (content_len): expected uint, got bool"},
		{"A1 0A 01", "key 10 (report): expected array, got uint"},
		{"A2 09 01 0A 81 20", "key 10 (report): expected uint, got negative int"},
		{"A2 09 01 0A 81 06", "level 6 is reserved"},
		{"A2 09 01 0A 80", "key 9 (report_id) with an empty report"},
		{"A1 18 40 F9 3C 00", "key 64 (unknown, skipped): half-precision float"},
		{"A1 18 40 62 C3 28", "key 64 (unknown, skipped): text in a skipped value is not valid UTF-8"},
		{"A2 18 40 00 18 40 00", "duplicate key 64"},
		{"A2 18 41 00 18 40 00", "key 64 after key 65"},
		{"A1 61 61 00", "a key is a text string"},
	} {
		_, err := DecodeData(unhex(t, v.hex))
		wantViolation(t, err, "DATA")
		wantViolation(t, err, v.want)
	}
}

func TestDataCheckInitiating(t *testing.T) {
	request := Data{Endpoint: Some("")}
	if err := request.CheckInitiating(); err != nil {
		t.Fatalf("an empty endpoint is present: %v", err)
	}
	reply := Data{Achieved: Some(LevelAccepted)}
	wantViolation(t, reply.CheckInitiating(), "without key 0 (endpoint)")
}

// DecodeKnown decodes exactly what DecodeData does, and hands back the
// caller's own endpoint string when the header names that path.
func TestDataDecodeKnown(t *testing.T) {
	known := "/jobs/resize"
	for _, c := range []struct {
		name string
		d    Data
	}{
		{"the known path", Data{Endpoint: Some(known)}},
		{"the known path among other texts", fullData()},
		{"another path", Data{Endpoint: Some("/jobs/other")}},
		{"a path extending the known one", Data{Endpoint: Some(known + "/x")}},
		{"no path", Data{Topic: Some(known)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := c.d.AppendHeader(nil)
			want, err := DecodeData(hdr)
			if err != nil {
				t.Fatal(err)
			}
			var got Data
			if err := got.DecodeKnown(hdr, known); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("DecodeKnown = %+v, want %+v", got, want)
			}
		})
	}
	var d Data
	if err := d.DecodeKnown(unhex(t, "A1 00 61"), known); err == nil || !reflect.DeepEqual(d, Data{}) {
		t.Errorf("a truncated header: err %v, d %+v; want an error and the zero Data", err, d)
	}
}

// The point of DecodeKnown: a request to the path a connection saw before
// costs no copy of the path, while another path still gets its own.
func TestDataDecodeKnownPathIsNotCopied(t *testing.T) {
	known := "/jobs/resize"
	allocs := func(path string) float64 {
		d := Data{Endpoint: Some(path)}
		hdr := d.AppendHeader(nil)
		return testing.AllocsPerRun(20, func() {
			var d Data
			_ = d.DecodeKnown(hdr, known)
		})
	}
	if n := allocs(known); n != 0 {
		t.Errorf("decoding the known path allocates %v times, want 0", n)
	}
	if n := allocs("/jobs/other"); n != 1 {
		t.Errorf("decoding another path allocates %v times, want 1 (its copy)", n)
	}
}

// decodeMinimal decides only what decodeWalk would decide the same way:
// every header it accepts decodes to the same Data through the walk, and
// it does accept the two shapes it exists for.
func TestDataDecodeMinimalAgreesWithTheWalk(t *testing.T) {
	var headers [][]byte
	for b := range 256 {
		headers = append(headers, []byte{byte(b)})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ascii := []byte{'/', 'a', 'Z', '0', 0x00, 0x7F}
	mixed := append([]byte{0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF}, ascii...)
	for n := range 30 {
		for i := range 200 {
			alphabet := ascii // valid UTF-8 half the time, so many are accepted
			if i%2 == 1 {
				alphabet = mixed
			}
			path := make([]byte, n)
			for i := range path {
				path[i] = alphabet[rng.IntN(len(alphabet))]
			}
			head := []byte{0xA1, 0x00, byte(majorText<<5 | min(n, 31))}
			headers = append(headers, append(head, path...), append(head, path[:n/2]...))
			// The same path with a content length after it, of every width
			// (minimal or not), cut short, over-long, or under another key.
			two := append([]byte{0xA2, 0x00, byte(majorText<<5 | min(n, 31))}, path...)
			lengths := [][]byte{{0x01, 0x00}, {0x01, 0x17}, {0x01, 0x18, 0x40}, {0x01, 0x18, 0x05},
				{0x01, 0x19, 0x01, 0x00}, {0x01, 0x1A, 0, 1, 0, 0}, {0x01, 0x1B, 0, 0, 0, 1, 0, 0, 0, 0},
				{0x01, 0x19, 0x01}, {0x01, 0x18, 0x40, 0x00}, {0x01, 0x1C}, {0x01, 0x1F}, {0x01, 0x20},
				{0x01, 0x40}, {0x02, 0x18, 0x40}, {0x18, 0x01, 0x05}, {0x01}, {}}
			for _, cl := range lengths {
				headers = append(headers, append(slices.Clone(two), cl...))
			}
		}
	}
	// Maps of the four keys the fast path reads, in every order and with
	// repeats, beside one it does not read (2, content_type).
	keys := []byte{0, 1, 5, 6, 2}
	values := map[byte][][]byte{
		0: {{0x65, '/', 'j', 'o', 'b', 's'}, {0x62, '/', 0xFF}, {0x78, 0x01, '/'}, {0x60}},
		1: {{0x18, 0x40}, {0x00}, {0x1A, 0, 1, 0}, {0x40}},
		5: {{0x63, 'a', '.', 'b'}, {0x61, 0x80}, {0x77}},
		6: {{0x07}, {0x1B, 0, 0, 0, 0, 0, 0, 0, 9}, {0x20}},
		2: {{0x61, 'x'}},
	}
	for range 20000 {
		n := rng.IntN(5)
		hdr := []byte{byte(majorMap<<5 | n)}
		for range n {
			k := keys[rng.IntN(len(keys))]
			vs := values[k]
			hdr = append(append(hdr, k), vs[rng.IntN(len(vs))]...)
		}
		headers = append(headers, hdr)
	}
	const known = "/jobs"
	accepted := map[string]bool{}
	for _, hdr := range headers {
		var fast, walked Data
		if !fast.decodeMinimal(hdr, known) {
			continue
		}
		accepted[hexOf(hdr)] = true
		if err := walked.decodeWalk(hdr, known); err != nil || !reflect.DeepEqual(fast, walked) {
			t.Fatalf("% X: decodeMinimal gave %+v, the walk %+v (%v)", hdr, fast, walked, err)
		}
	}
	for _, want := range []string{"A0", "A1 00 65 2F 6A 6F 62 73", "A1 00 62 2F 74",
		"A2 00 65 2F 6A 6F 62 73 01 18 40", "A2 00 62 2F 74 01 1B 00 00 00 01 00 00 00 00",
		"A3 00 62 2F 74 01 19 04 00 05 63 61 2E 62", "A2 00 62 2F 74 06 07", "A1 05 61 78"} {
		var d Data
		if !d.decodeMinimal(unhex(t, want), known) {
			t.Errorf("decodeMinimal refused %s, a shape it exists for", want)
		}
	}
	if len(accepted) < 1000 {
		t.Fatalf("only %d distinct headers took the minimal path; the comparison proves little", len(accepted))
	}
}
