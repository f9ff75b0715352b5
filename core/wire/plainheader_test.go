package wire

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// plainHeader lets a header skip strictMode only when strictMode would
// accept it: every input it calls plain must be well-formed. The inputs are
// every header of up to two bytes and seeded mutations of typical headers.
func TestPlainHeaderImpliesWellformed(t *testing.T) {
	check := func(hdr []byte) {
		if plainHeader(hdr) {
			if err := strictMode.Wellformed(hdr); err != nil {
				t.Fatalf("plainHeader(% X) = true, but strictMode rejects it: %v", hdr, err)
			}
		}
	}
	for n := 0; n <= 2; n++ {
		for v := range 1 << (8 * n) {
			hdr := make([]byte, n)
			for i := range hdr {
				hdr[i] = byte(v >> (8 * i))
			}
			check(hdr)
		}
	}
	full := fullData()
	seeds := [][]byte{full.AppendHeader(nil), unhex(t, "A1 00 62 2F 74"), unhex(t, "A2 00 62 2F 74 01 19 04 00")}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		hdr := slices.Clone(seeds[rng.IntN(len(seeds))])
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(hdr)); rng.IntN(3) {
			case 0:
				hdr[i] = byte(rng.Uint32())
			case 1:
				hdr = hdr[:i]
			default:
				hdr = slices.Insert(hdr, i, byte(rng.Uint32()))
			}
			if len(hdr) == 0 {
				break
			}
		}
		check(hdr)
	}
}

// The shapes that make up nearly every header take the fast path; the
// rest, legal or not, are left to strictMode.
func TestPlainHeaderShapes(t *testing.T) {
	full := fullData()
	for _, c := range []struct {
		hex   string
		plain bool
	}{
		{"A0", true},                               // empty map: a reply
		{"A1 00 62 2F 74", true},                   // a path
		{"A2 00 62 2F 74 01 19 04 00", true},       // a path and a content length
		{"A1 0A 82 01 05", true},                   // an array of uints
		{hexOf(full.AppendHeader(nil)), true},      // every DATA key
		{"A1 00 7F 61 61 FF", false},               // indefinite text
		{"A1 00 C1 00", false},                     // a tag
		{"A1 00 F5", false},                        // a simple value
		{"A1 00 A0", false},                        // a nested map
		{"A1 00 81 81 00", false},                  // a nested array
		{"A1 00 62 2F", false},                     // truncated
		{"A1 00 00 00", false},                     // trailing bytes
		{"BF FF", false},                           // indefinite map
		{"B8 18 " + repeatHex("00 00", 24), false}, // more pairs than a one-byte count
		{"80", false},                              // not a map
	} {
		if got := plainHeader(unhex(t, c.hex)); got != c.plain {
			t.Errorf("plainHeader(%s) = %v, want %v", c.hex, got, c.plain)
		}
	}
}
