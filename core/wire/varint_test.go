package wire

import (
	"errors"
	"testing"
)

func TestVarintRoundTripAcrossBoundaries(t *testing.T) {
	for _, v := range []uint64{0, 1, 63, 64, 16383, 16384, 1073741823, 1073741824, MaxVarint - 1, MaxVarint} {
		b := AppendVarint([]byte{0xEE}, v)[1:]
		got, n, err := ParseVarint(append(b, 0xFF)) // a trailing byte is not consumed
		if err != nil || got != v || n != len(b) || n != VarintLen(v) {
			t.Errorf("%d: encoded % X, parsed %d in %d bytes, %v", v, b, got, n, err)
		}
	}
}

func TestVarintAcceptsEveryLength(t *testing.T) {
	for _, b := range [][]byte{{0x05}, {0x40, 0x05}, {0x80, 0, 0, 0x05}, {0xC0, 0, 0, 0, 0, 0, 0, 0x05}} {
		if v, n, err := ParseVarint(b); err != nil || v != 5 || n != len(b) {
			t.Errorf("% X = %d, %d, %v", b, v, n, err)
		}
	}
}

func TestVarintPrefixesNeedMore(t *testing.T) {
	b := AppendVarint(nil, MaxVarint)
	for i := range len(b) {
		if _, _, err := ParseVarint(b[:i]); !errors.Is(err, ErrNeedMore) {
			t.Errorf("prefix of %d bytes: %v", i, err)
		}
	}
}

func TestVarintAboveMaxPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"AppendVarint": func() { AppendVarint(nil, MaxVarint+1) },
		"VarintLen":    func() { VarintLen(1 << 63) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic above MaxVarint", name)
				}
			}()
			f()
		}()
	}
}
