package wire

import (
	"errors"
	"testing"
)

func TestPreambleRoundTrip(t *testing.T) {
	for _, hl := range []int{0, 63, 64, 16384} {
		for k := KindHello; k <= KindFlow; k++ {
			b := AppendPreamble(nil, k, hl)
			p, n, err := ParsePreamble(b, 16384)
			if err != nil || p != (Preamble{Kind: k, HeaderLen: uint64(hl)}) || n != len(b) {
				t.Errorf("%v/%d: %+v, %d, %v", k, hl, p, n, err)
			}
		}
	}
}

func TestPreambleJudgesEachByteAsItArrives(t *testing.T) {
	for _, v := range []struct {
		hex  string
		want string // "" means ErrNeedMore
	}{
		{"", ""},
		{"57", ""},
		{"57 01", ""},
		{"57 01 40", ""},
		{"58", "magic is 0x58"},
		{"00 01 05", "magic is 0x00"},
		{"57 09", "frame kind 9 is undefined"},
		{"57 FF", "frame kind 255 is undefined"},
		{"57 01 C0 00 00 00 00 00 40 01", "header_len 16385 exceeds max_header_bytes 16384"},
	} {
		_, _, err := ParsePreamble(unhex(t, v.hex), DefaultMaxHeaderBytes)
		if v.want == "" {
			if !errors.Is(err, ErrNeedMore) {
				t.Errorf("%s: %v, want ErrNeedMore", v.hex, err)
			}
			continue
		}
		wantViolation(t, err, v.want)
	}
}

func TestPreambleLimitIsLocal(t *testing.T) {
	b := AppendPreamble(nil, KindData, 100)
	if _, _, err := ParsePreamble(b, 100); err != nil {
		t.Fatalf("a length equal to the limit: %v", err)
	}
	_, _, err := ParsePreamble(b, 99)
	wantViolation(t, err, "header_len 100 exceeds max_header_bytes 99")
}

func TestAppendPreambleRejectsNegativeLength(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic on a negative header length")
		}
	}()
	AppendPreamble(nil, KindData, -1)
}
