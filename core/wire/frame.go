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
	return fixHeaderLen(h.AppendHeader(b), start)
}

// AppendDataFrame is AppendFrame for a DATA header. Called on the concrete
// type, it lets the caller keep d on its stack (through the interface d
// would escape to the heap, once per stream).
func AppendDataFrame(b []byte, d *Data) []byte {
	start := len(b)
	b = append(b, Magic, byte(KindData), 0)
	return fixHeaderLen(d.AppendHeader(b), start)
}

// fixHeaderLen writes the header_len of the frame that starts at start,
// whose header follows a one-byte length guess.
func fixHeaderLen(b []byte, start int) []byte {
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
