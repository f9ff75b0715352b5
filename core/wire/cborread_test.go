package wire

import (
	"strings"
	"testing"
)

// skipOf runs the walker's skip over one value and checks it consumed
// exactly the value.
func skipOf(t *testing.T, value string) error {
	t.Helper()
	b := unhex(t, value)
	r := reader{buf: b}
	err := r.skip()
	if err == nil && r.off != len(b) {
		t.Fatalf("skip of %s stopped at %d of %d bytes", value, r.off, len(b))
	}
	return err
}

func TestSkipAcceptsEverySkippableItem(t *testing.T) {
	for _, v := range []string{
		"00", "17", "18 18", "19 01 00", "1A 00 01 00 00", "1B 00 00 00 01 00 00 00 00", // uints
		"20", "38 FF", "3B FF FF FF FF FF FF FF FF", // negative ints
		"40", "43 01 02 03", "58 02 AB CD", // byte strings
		"60", "63 61 62 63", "62 C3 A9", // text strings (é)
		"F4", "F5", "F6", "F7", // false, true, null, undefined
		"FA 3F C0 00 00", "FB 3F F8 00 00 00 00 00 00", // 32- and 64-bit floats
		"80", "A0", "83 01 80 A0", "A2 61 61 01 81 02 A0", // containers
		"A1 81 01 02",                                  // a map key may be any value
		"82 " + repeatHex("81", 7) + "01 02",           // 8 levels, then a sibling
		repeatHex("81", 8) + "80",                      // 8 non-empty levels plus an empty one
		repeatHex("A1 00", 8) + "A0",                   // the same with maps
		"18 00", "78 01 61", "98 01 00", "B8 01 00 00", // non-minimal lengths
	} {
		if err := skipOf(t, v); err != nil {
			t.Errorf("skip %s: %v", v, err)
		}
	}
}

func TestSkipRejects(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{repeatHex("81", 9) + "01", "nests more than 8"},
		{repeatHex("A1 00", 9) + "00", "nests more than 8"},
		{repeatHex("81", 4) + repeatHex("A1 00", 5) + "01", "nests more than 8"},
		{"F9 3C 00", "half-precision float"},
		{"81 F9 3C 00", "half-precision float"},
		{"F0", "unassigned simple value"},
		{"F8 20", "unassigned simple value"},
		{"F8 FF", "unassigned simple value"},
		{"FF", "break"},
		{"C1 00", "CBOR tag"},
		{"5F 41 00 FF", "indefinite-length byte string"},
		{"7F FF", "indefinite-length text string"},
		{"9F FF", "indefinite-length array"},
		{"BF FF", "indefinite-length map"},
		{"1F", "malformed integer"},
		{"1C", "reserved additional information 28"},
		{"62 FF FE", "not valid UTF-8"},
		{"BB 80 00 00 00 00 00 00 00", "overflows"},
		{"9B 00 00 00 01 00 00 00 00", "ends inside"},
		{"19 01", "ends inside"},
		{"63 61 62", "ends inside"},
		{"82 01", "ends inside"},
		{"", "ends inside"},
	} {
		wantViolation(t, skipOf(t, v.hex), v.want)
	}
}

func TestReaderAcceptsNonMinimalIntegers(t *testing.T) {
	for _, v := range []string{"05", "18 05", "19 00 05", "1A 00 00 00 05", "1B 00 00 00 00 00 00 00 05"} {
		r := reader{buf: unhex(t, v)}
		if got, err := r.uint(); err != nil || got != 5 {
			t.Errorf("uint %s = %d, %v", v, got, err)
		}
	}
	// Keys and lengths too: {0x18 0x00: "/t"} with a one-byte text length.
	d, err := DecodeData(unhex(t, "A1 18 00 78 02 2F 74"))
	if err != nil || d.Endpoint != Some("/t") {
		t.Fatalf("non-minimal key and length: %+v, %v", d, err)
	}
}

func TestReaderCapsBeforeAllocation(t *testing.T) {
	r := reader{buf: unhex(t, "9A FF FF FF FF")}
	if _, err := r.arrayLen(MaxListItems); err == nil || !strings.Contains(err.Error(), "4294967295 items, more than 64") {
		t.Fatalf("arrayLen: %v", err)
	}
	r = reader{buf: unhex(t, "79 02 01")}
	wantViolation(t, func() error { _, err := r.textSpan(512); return err }(), "text of 513 bytes exceeds its cap of 512")
}

// The layer-1 verdicts, each worded as the wire rule it breaks.
func TestStrictModeVerdicts(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{"", "empty header"},
		{"A1 00", "ends inside a CBOR item"},
		{"A0 00", "bytes left after the map"},
		{"BF FF", "indefinite-length item"},
		{"A1 00 5F FF", "indefinite-length item"},
		{"A1 18 40 C0 00", "CBOR tag"},
		{"A1 18 40 F0", "unassigned simple value"},
		{"A1 18 40 F8 40", "unassigned simple value"},
		{"A1 18 40 " + repeatHex("81", 11) + "01", "nested deeper"},
		{"A1 18 40 9A 00 20 00 00", "declares more items"},
		{"A1 18 40 BA 00 20 00 00", "declares more items"},
		{"A1 18 40 FC", "DATA header"},
	} {
		wantViolation(t, checkWellformed("DATA", unhex(t, v.hex)), v.want)
	}
	for _, v := range []string{"A0", "A1 18 40 F9 3C 00", "A1 18 40 " + repeatHex("81", 10) + "01"} {
		// Half floats and depth are the walker's: layer 1 lets them through.
		if err := checkWellformed("DATA", unhex(t, v)); err != nil {
			t.Errorf("layer 1 rejected %s: %v", v, err)
		}
	}
}

func TestHeaderMustBeAMap(t *testing.T) {
	for _, v := range []struct{ hex, want string }{
		{"80", "expected map, got array"},
		{"00", "expected map, got uint"},
		{"61 61", "expected map, got text string"},
		{"F6", "expected map, got simple value"},
	} {
		_, err := DecodeData(unhex(t, v.hex))
		wantViolation(t, err, "DATA header: "+v.want)
	}
}
