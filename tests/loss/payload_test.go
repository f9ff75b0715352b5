package loss

import "math/rand/v2"

// payloadFor is request i's payload: its index and pseudo-random bytes of
// a size between 16 B and 16 KiB, so each is distinct and checkable.
func payloadFor(i int) []byte {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	b := make([]byte, 16+rng.IntN(16<<10))
	for j := range b {
		b[j] = byte(rng.Uint32())
	}
	copy(b, []byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
	return b
}

// index reads the transfer index payloadFor put in a payload's first bytes.
func index(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	return int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3])
}
