package wire

import "encoding/binary"

// The CBOR writer of the encoder rules (PROTOCOL.md §7.1): definite
// lengths only, every integer and length in its shortest form. Callers emit
// keys in ascending order themselves; each frame file writes its keys in
// key order, so no sorting happens at run time.

// appendHead appends a CBOR item head with the shortest argument for v.
func appendHead(b []byte, major byte, v uint64) []byte {
	m := major << 5
	switch {
	case v < 24:
		return append(b, m|byte(v))
	case v <= 0xFF:
		return append(b, m|24, byte(v))
	case v <= 0xFFFF:
		return binary.BigEndian.AppendUint16(append(b, m|25), uint16(v))
	case v <= 0xFFFFFFFF:
		return binary.BigEndian.AppendUint32(append(b, m|26), uint32(v))
	default:
		return binary.BigEndian.AppendUint64(append(b, m|27), v)
	}
}

// appendUintKey appends key and a uint value.
func appendUintKey(b []byte, key, v uint64) []byte {
	return appendHead(appendHead(b, majorUint, key), majorUint, v)
}

// appendTextKey appends key and a text string value.
func appendTextKey(b []byte, key uint64, s string) []byte {
	b = appendHead(appendHead(b, majorUint, key), majorText, uint64(len(s)))
	return append(b, s...)
}

// appendBytesKey appends key and a byte string value.
func appendBytesKey(b []byte, key uint64, v []byte) []byte {
	b = appendHead(appendHead(b, majorUint, key), majorBytes, uint64(len(v)))
	return append(b, v...)
}

// appendUintsKey appends key and an array of uints.
func appendUintsKey(b []byte, key uint64, vs []uint64) []byte {
	b = appendHead(appendHead(b, majorUint, key), majorArray, uint64(len(vs)))
	for _, v := range vs {
		b = appendHead(b, majorUint, v)
	}
	return b
}

// count1 returns 1 for a written key and 0 for an omitted one, for map heads.
func count1(written bool) uint64 {
	if written {
		return 1
	}
	return 0
}
