package wire

// Preamble is the start of every stream half (PROTOCOL.md §5.1): magic,
// frame kind and the length of the CBOR header that follows.
type Preamble struct {
	Kind      Kind
	HeaderLen uint64
}

// AppendPreamble appends magic, kind and the shortest varint of headerLen.
// It panics on a negative headerLen, which no header has.
func AppendPreamble(b []byte, k Kind, headerLen int) []byte {
	if headerLen < 0 {
		panic("wire: negative header length")
	}
	return AppendVarint(append(b, Magic, byte(k)), uint64(headerLen))
}

// ParsePreamble parses the preamble at the start of b and returns it with
// its encoded length. Each byte is judged as soon as it is present, so a bad
// magic or an undefined kind is a violation even before the varint arrives;
// an input that is merely short yields ErrNeedMore.
//
// A header_len above maxHeader (the local max_header_bytes) is a violation:
// the caller learns it before it has allocated anything for the header
// (§5.3). A length equal to maxHeader is accepted.
func ParsePreamble(b []byte, maxHeader uint64) (Preamble, int, error) {
	if len(b) == 0 {
		return Preamble{}, 0, ErrNeedMore
	}
	if b[0] != Magic {
		return Preamble{}, 0, violation("preamble: magic is 0x%02X, want 0x57", b[0])
	}
	if len(b) < 2 {
		return Preamble{}, 0, ErrNeedMore
	}
	k := Kind(b[1])
	if !k.Valid() {
		return Preamble{}, 0, violation("preamble: frame kind %d is undefined (0..=8)", b[1])
	}
	hl, n, err := ParseVarint(b[2:])
	if err != nil {
		return Preamble{}, 0, err // only ErrNeedMore
	}
	if hl > maxHeader {
		return Preamble{}, 0, violation("preamble: header_len %d exceeds max_header_bytes %d", hl, maxHeader)
	}
	return Preamble{Kind: k, HeaderLen: hl}, 2 + n, nil
}
