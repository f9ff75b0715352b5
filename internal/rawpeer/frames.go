package rawpeer

import (
	"bytes"

	"github.com/weida-go/weida/core/wire"
)

// Frame is a stream opening built from raw parts: the magic, kind, the
// header length as a shortest-form varint, then header. It checks nothing,
// so any header bytes (a negative vector) can be framed.
func Frame(kind wire.Kind, header []byte) []byte {
	b := append([]byte{wire.Magic, byte(kind)}, wire.AppendVarint(nil, uint64(len(header)))...)
	return append(b, header...)
}

// Encode is a well-formed frame: preamble and header as weida encodes them.
func Encode(kind wire.Kind, h wire.HeaderAppender) []byte { return wire.AppendFrame(nil, kind, h) }

// Hello is the default v0 HELLO frame (PROTOCOL.md §15.1 vector 4).
func Hello() []byte {
	h := wire.DefaultHello()
	return Encode(wire.KindHello, &h)
}

// Data is a DATA frame addressed to endpoint, followed by payload.
func Data(endpoint string, payload []byte) []byte {
	h := wire.Data{Endpoint: wire.Some(endpoint)}
	return append(Encode(wire.KindData, &h), payload...)
}

// Reply is the minimal reply-half DATA frame (the empty map), then payload.
func Reply(payload []byte) []byte {
	return append(Encode(wire.KindData, &wire.Data{}), payload...)
}

// ErrorReply is an ERROR frame carrying code, for a reply half.
func ErrorReply(code uint64) []byte {
	return Encode(wire.KindError, &wire.ErrorFrame{Code: code})
}

// Cat joins byte strings.
func Cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Repeat is n copies of b.
func Repeat(b []byte, n int) []byte { return bytes.Repeat(b, n) }

// Text is a CBOR text string of n bytes 'x' (major type 3, shortest head).
func Text(n int) []byte { return cborHead(0x60, n, bytes.Repeat([]byte("x"), n)) }

// Bytes is a CBOR byte string of n zero bytes (major type 2, shortest head).
func Bytes(n int) []byte { return cborHead(0x40, n, make([]byte, n)) }

// UintArray is a CBOR array of the given small unsigned integers (each < 24).
func UintArray(items ...byte) []byte { return cborHead(0x80, len(items), items) }

// cborHead prefixes body with a definite-length head of major type major.
func cborHead(major byte, n int, body []byte) []byte {
	var h []byte
	switch {
	case n < 24:
		h = []byte{major | byte(n)}
	case n < 1<<8:
		h = []byte{major | 24, byte(n)}
	case n < 1<<16:
		h = []byte{major | 25, byte(n >> 8), byte(n)}
	default:
		h = []byte{major | 26, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return append(h, body...)
}
