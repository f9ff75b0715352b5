package wire

// HeaderAppender is implemented by every header type: it appends the
// header's CBOR map (and nothing else) to b.
type HeaderAppender interface {
	AppendHeader(b []byte) []byte
}

// AppendFrame appends a whole frame start, preamble and header, to b. The
// header is encoded straight into b after a one-byte length guess; when the
// header turns out longer than 63 bytes it is moved up to make room for the
// longer varint, so nothing is allocated beyond growing b.
//
// The kind is the caller's: Subscribe encodes both SUBSCRIBE and
// UNSUBSCRIBE, so AppendFrame(b, KindUnsubscribe, &s) is the latter.
func AppendFrame(b []byte, k Kind, h HeaderAppender) []byte {
	start := len(b)
	b = append(b, Magic, byte(k), 0)
	b = h.AppendHeader(b)
	hdrStart := start + 3
	n := len(b) - hdrStart
	vl := VarintLen(uint64(n))
	if vl > 1 {
		b = append(b, make([]byte, vl-1)...) // grows b only; make is elided
		copy(b[hdrStart+vl-1:], b[hdrStart:hdrStart+n])
	}
	AppendVarint(b[:start+2], uint64(n))
	return b
}
