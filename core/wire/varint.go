package wire

import "encoding/binary"

// MaxVarint is the largest value a QUIC varint can carry (2^62-1).
const MaxVarint uint64 = 1<<62 - 1

// VarintLen returns the length of the shortest encoding of v: 1, 2, 4 or 8.
// It panics if v exceeds MaxVarint, which has no encoding.
func VarintLen(v uint64) int {
	switch {
	case v <= 63:
		return 1
	case v <= 16383:
		return 2
	case v <= 1073741823:
		return 4
	case v <= MaxVarint:
		return 8
	}
	panic("wire: varint value above 2^62-1 has no encoding")
}

// AppendVarint appends the shortest RFC 9000 §16 encoding of v to b (the
// form PROTOCOL.md §5.2 requires of encoders).
//
// It panics if v exceeds MaxVarint: such a value has no encoding, and every
// varint the protocol writes (a header length, a cursor offset, a flow id)
// is bounded by the caller long before that, so reaching it is a bug.
func AppendVarint(b []byte, v uint64) []byte {
	switch VarintLen(v) {
	case 1:
		return append(b, byte(v))
	case 2:
		return binary.BigEndian.AppendUint16(b, uint16(v)|0x4000)
	case 4:
		return binary.BigEndian.AppendUint32(b, uint32(v)|0x80000000)
	default:
		return binary.BigEndian.AppendUint64(b, v|0xC000000000000000)
	}
}

// ParseVarint decodes the varint at the start of b and returns its value
// and encoded length. Any length is accepted for any value (a non-minimal
// form is not an error). A b that ends inside the varint yields ErrNeedMore.
func ParseVarint(b []byte) (v uint64, n int, err error) {
	if len(b) == 0 {
		return 0, 0, ErrNeedMore
	}
	n = 1 << (b[0] >> 6)
	if len(b) < n {
		return 0, 0, ErrNeedMore
	}
	switch n {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(binary.BigEndian.Uint16(b) & 0x3FFF)
	case 4:
		v = uint64(binary.BigEndian.Uint32(b) & 0x3FFFFFFF)
	default:
		v = binary.BigEndian.Uint64(b) & MaxVarint
	}
	return v, n, nil
}

// varintLenOf returns the encoded length announced by a varint's first byte.
func varintLenOf(first byte) int { return 1 << (first >> 6) }
