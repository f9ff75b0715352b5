package wire

import "testing"

func TestEncodeHeadIsMinimal(t *testing.T) {
	for _, v := range []struct {
		value uint64
		hex   string
	}{
		{0, "00"}, {23, "17"}, {24, "18 18"}, {150, "18 96"}, {255, "18 FF"}, {256, "19 01 00"},
		{16384, "19 40 00"}, {65535, "19 FF FF"}, {65536, "1A 00 01 00 00"},
		{1<<32 - 1, "1A FF FF FF FF"}, {1 << 32, "1B 00 00 00 01 00 00 00 00"},
	} {
		if got := appendHead(nil, majorUint, v.value); hexOf(got) != v.hex {
			t.Errorf("appendHead(%d) = %s, want %s", v.value, hexOf(got), v.hex)
		}
	}
}
