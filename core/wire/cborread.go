package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// Headers are judged in two layers (PROTOCOL.md §7.2, §7.4):
//
//  1. strictMode (fxamacker/cbor) decides whether the header is exactly one
//     well-formed CBOR item under the wire profile: no indefinite lengths,
//     no tags, no unassigned simple values, nothing after the item, bounded
//     nesting and container sizes. A header it rejects never reaches layer 2.
//  2. The walker below (reader) reads the frame's schema without recursion:
//     uint keys in strictly ascending order, value types, string caps,
//     UTF-8, list caps checked before anything is allocated from a declared
//     count, and, for skipped values, the exact depth rule and the rejection
//     of half-precision floats, which fxamacker has no option for.
//
// The walker does not trust layer 1: it bounds-checks every read and fails
// closed on anything it cannot size, so a bug in either layer cannot turn
// into an out-of-range read.

// CBOR major types (RFC 8949 §3.1).
const (
	majorUint   = 0
	majorNegint = 1
	majorBytes  = 2
	majorText   = 3
	majorArray  = 4
	majorMap    = 5
	majorTag    = 6
	majorSimple = 7
)

// Additional-information values with a meaning of their own in major type 7.
const (
	aiFalse     = 20
	aiUndefined = 23
	aiHalf      = 25
	aiSingle    = 26
	aiDouble    = 27
	aiIndef     = 31
)

// strictNestedLevels bounds the nesting fxamacker accepts. The deepest legal
// header is a HELLO guarantee map (level 2) holding an unknown key whose
// skipped value has 8 non-empty levels plus one empty container: 11 levels.
// The exact rule (empty containers do not count) is the walker's.
const strictNestedLevels = 11

// strictMaxItems bounds the declared size of any array or map at its head.
// Nothing is allocated from these counts (layer 1 only walks, layer 2 has
// its own small caps), so the bound only makes a hostile count fail at once;
// a header would need more than 1 MiB to hold a legal container this large.
const strictMaxItems = 1 << 20

// strictMode is the layer-1 judge. It sets only options that Wellformed
// honours; UTF-8 is the walker's job because Wellformed does not look
// inside strings.
var strictMode = newStrictMode()

func newStrictMode() cbor.DecMode {
	// Only false, true, null and undefined (20..=23) are allowed; 24..=31
	// cannot be encoded at all and fxamacker rejects them as malformed.
	var rejected []func(*cbor.SimpleValueRegistry) error
	for sv := 0; sv < 256; sv++ {
		if sv < aiFalse || sv > 31 {
			rejected = append(rejected, cbor.WithRejectedSimpleValue(cbor.SimpleValue(sv)))
		}
	}
	simple, err := cbor.NewSimpleValueRegistryFromDefaults(rejected...)
	if err != nil {
		panic("wire: simple value registry: " + err.Error())
	}
	dm, err := cbor.DecOptions{
		IndefLength:      cbor.IndefLengthForbidden,
		TagsMd:           cbor.TagsForbidden,
		MaxNestedLevels:  strictNestedLevels,
		MaxArrayElements: strictMaxItems,
		MaxMapPairs:      strictMaxItems,
		SimpleValues:     simple,
	}.DecMode()
	if err != nil {
		panic("wire: strict CBOR mode: " + err.Error())
	}
	return dm
}

// checkWellformed runs layer 1 over a whole header and words its verdict.
// A header of the plain shape almost every sender writes (plainheader.go)
// is well-formed by construction and skips the fxamacker walk.
func checkWellformed(frame string, hdr []byte) error {
	if plainHeader(hdr) {
		return nil // well-formed under every strictMode rule by construction
	}
	err := strictMode.Wellformed(hdr)
	if err == nil {
		return nil
	}
	var (
		extra  *cbor.ExtraneousDataError
		indef  *cbor.IndefiniteLengthError
		tag    *cbor.TagsMdError
		nested *cbor.MaxNestedLevelError
		array  *cbor.MaxArrayElementsError
		pairs  *cbor.MaxMapPairsError
		simple *cbor.UnacceptableDataItemError
	)
	what := strings.TrimPrefix(err.Error(), "cbor: ")
	switch {
	case errors.Is(err, io.EOF):
		what = "empty header, want one map"
	case errors.Is(err, io.ErrUnexpectedEOF):
		what = "ends inside a CBOR item"
	case errors.As(err, &extra):
		what = "bytes left after the map"
	case errors.As(err, &indef):
		what = "indefinite-length item, which the wire forbids"
	case errors.As(err, &tag):
		what = "CBOR tag, which the wire forbids"
	case errors.As(err, &nested):
		what = "nested deeper than any legal header"
	case errors.As(err, &array), errors.As(err, &pairs):
		what = "a container declares more items than any legal header holds"
	case errors.As(err, &simple):
		what = "unassigned simple value"
	}
	return violation("%s header: %s", frame, what)
}

// reader is the layer-2 walker: a cursor over one header's bytes.
type reader struct {
	buf []byte
	off int
}

// remaining is the number of unread bytes.
func (r *reader) remaining() int { return len(r.buf) - r.off }

// head reads one item head and returns its major type, additional
// information and argument. Non-minimal arguments are accepted (§17 item 3).
// For ai 31 (indefinite length or break) the argument is 0; the caller
// decides, since only it knows whether that is legal (it never is in v0).
func (r *reader) head() (major, ai byte, arg uint64, err error) {
	if r.off >= len(r.buf) {
		return 0, 0, 0, errTruncated
	}
	ib := r.buf[r.off]
	major, ai = ib>>5, ib&0x1F
	r.off++
	var size int
	switch {
	case ai < 24:
		return major, ai, uint64(ai), nil
	case ai <= aiDouble:
		size = 1 << (ai - 24)
	case ai == aiIndef:
		return major, ai, 0, nil
	default:
		return 0, 0, 0, violation("reserved additional information %d", ai)
	}
	if r.remaining() < size {
		return 0, 0, 0, errTruncated
	}
	b := r.buf[r.off : r.off+size]
	r.off += size
	switch size {
	case 1:
		arg = uint64(b[0])
	case 2:
		arg = uint64(binary.BigEndian.Uint16(b))
	case 4:
		arg = uint64(binary.BigEndian.Uint32(b))
	default:
		arg = binary.BigEndian.Uint64(b)
	}
	return major, ai, arg, nil
}

var errTruncated = &ViolationError{Reason: "ends inside a CBOR item"}

// typeName names a major type for error messages.
func typeName(major, ai byte) string {
	switch major {
	case majorUint:
		return "uint"
	case majorNegint:
		return "negative int"
	case majorBytes:
		return "byte string"
	case majorText:
		return "text string"
	case majorArray:
		return "array"
	case majorMap:
		return "map"
	case majorTag:
		return "tag"
	}
	switch ai {
	case aiFalse, aiFalse + 1:
		return "bool"
	case aiHalf, aiSingle, aiDouble:
		return "float"
	}
	return "simple value"
}

// expect reads a head of the given major type with a definite argument.
func (r *reader) expect(want byte) (uint64, error) {
	major, ai, arg, err := r.head()
	if err != nil {
		return 0, err
	}
	if major != want {
		return 0, violation("expected %s, got %s", typeName(want, 0), typeName(major, ai))
	}
	if ai == aiIndef {
		return 0, violation("indefinite length where a %s is expected", typeName(want, 0))
	}
	return arg, nil
}

// uint reads an unsigned integer.
func (r *reader) uint() (uint64, error) { return r.expect(majorUint) }

// uintMax reads an unsigned integer no greater than max (an enumerated value).
func (r *reader) uintMax(max uint64) (uint64, error) {
	v, err := r.expect(majorUint)
	if err == nil && v > max {
		err = violation("value %d is undefined (0..=%d)", v, max)
	}
	return v, err
}

// span reads the body of a string whose head declared n bytes, checking the
// cap before touching the bytes.
func (r *reader) span(n uint64, limit int, kind string) ([]byte, error) {
	if n > uint64(limit) {
		return nil, violation("%s of %d bytes exceeds its cap of %d", kind, n, limit)
	}
	if n > uint64(r.remaining()) {
		return nil, errTruncated
	}
	b := r.buf[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// bytesExact reads a byte string of exactly len(dst) bytes into dst.
func (r *reader) bytesExact(dst []byte) error {
	n, err := r.expect(majorBytes)
	if err != nil {
		return err
	}
	if n != uint64(len(dst)) {
		return violation("byte string of %d bytes, want exactly %d", n, len(dst))
	}
	b, err := r.span(n, len(dst), "byte string")
	copy(dst, b)
	return err
}

// arrayLen reads an array head declaring at most limit items. The cap is
// checked here, before any caller reserves memory from the count.
func (r *reader) arrayLen(limit int) (int, error) {
	n, err := r.expect(majorArray)
	if err != nil {
		return 0, err
	}
	if n > uint64(limit) {
		return 0, violation("array declares %d items, more than %d", n, limit)
	}
	if n > uint64(r.remaining()) { // every item takes at least one byte
		return 0, errTruncated
	}
	return int(n), nil
}

// mapLen reads a definite map head and returns its pair count.
func (r *reader) mapLen() (uint64, error) {
	n, err := r.expect(majorMap)
	if err != nil {
		return 0, err
	}
	if n > uint64(r.remaining())/2 { // every pair takes at least two bytes
		return 0, errTruncated
	}
	return n, nil
}

// skip steps over one value of an unknown key without recursion (§7.2).
// The value may nest at most MaxSkipDepth non-empty arrays or maps; empty
// containers do not count. It may hold integers, 32/64-bit floats, strings
// (text must be UTF-8), false, true, null and undefined; anything else is a
// violation.
func (r *reader) skip() error {
	// outer[d] holds the items still unread at depth d while a container
	// nested there is being read; depth 0 is the skipped value itself.
	var outer [MaxSkipDepth]uint64
	depth := 0
	left := uint64(1) // items unread at the current depth
	for {
		major, ai, arg, err := r.head()
		if err != nil {
			return err
		}
		left--
		switch major {
		case majorUint, majorNegint:
			if ai == aiIndef {
				return violation("malformed integer head")
			}
		case majorBytes, majorText:
			if ai == aiIndef {
				return violation("indefinite-length %s in a skipped value", typeName(major, ai))
			}
			if arg > uint64(r.remaining()) {
				return errTruncated
			}
			b := r.buf[r.off : r.off+int(arg)]
			r.off += int(arg)
			if major == majorText && !utf8.Valid(b) {
				return violation("text in a skipped value is not valid UTF-8")
			}
		case majorArray, majorMap:
			if ai == aiIndef {
				return violation("indefinite-length %s in a skipped value", typeName(major, ai))
			}
			items := arg
			if major == majorMap {
				if items > math.MaxUint64/2 {
					return violation("map pair count %d overflows", arg)
				}
				items *= 2
			}
			if items > uint64(r.remaining()) {
				return errTruncated
			}
			if items == 0 {
				break
			}
			if depth == MaxSkipDepth {
				return violation("skipped value nests more than %d non-empty containers", MaxSkipDepth)
			}
			outer[depth] = left
			depth++
			left = items
		case majorTag:
			return violation("CBOR tag in a skipped value")
		case majorSimple:
			switch {
			case ai >= aiFalse && ai <= aiUndefined, ai == aiSingle, ai == aiDouble:
			case ai == aiHalf:
				return violation("half-precision float in a skipped value")
			case ai == aiIndef:
				return violation("unexpected break code")
			default:
				return violation("unassigned simple value in a skipped value")
			}
		}
		for left == 0 {
			if depth == 0 {
				return nil
			}
			depth--
			left = outer[depth]
		}
	}
}
