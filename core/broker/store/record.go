package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Journal record framing (BROKER.md §13.3), little-endian:
//
//	u32 len | u32 crc32c(type ‖ body) | u8 type | body
//
// len counts the body only. The five record types are the whole vocabulary.
// ADMIT_INLINE is an ADMIT whose message body follows its fields in the
// record itself (body_len bytes, at most MaxInlineBodyBytes) instead of
// living in a payload file: a small message then costs one journal append.
const (
	recAdmit       byte = 1 // seq u64, digest [32], body_len u64, four optional byte strings
	recSettle      byte = 2 // seq u64
	recAttempt     byte = 3 // seq u64, count u64
	recAdmitInline byte = 4 // the ADMIT fields, then body_len bytes of body
	recQuarantine  byte = 5 // seq u64, reason (u16 length, at most MaxQuarantineReasonBytes)
)

// MaxQuarantineReasonBytes caps the reason a QUARANTINE record keeps for
// an operator; a longer one is cut.
const MaxQuarantineReasonBytes = 256

// MaxInlineBodyBytes is the largest body kept inline in its ADMIT_INLINE
// record rather than in a payload file. Inline bodies of live messages are
// also held in memory, so the cap bounds that cost per message.
const MaxInlineBodyBytes = 4 << 10

// recordName is a record type's name for error messages.
func recordName(typ byte) string {
	switch typ {
	case recAdmit:
		return "ADMIT"
	case recSettle:
		return "SETTLE"
	case recAttempt:
		return "ATTEMPT"
	case recAdmitInline:
		return "ADMIT_INLINE"
	case recQuarantine:
		return "QUARANTINE"
	}
	return fmt.Sprintf("record type %d", typ)
}

// frameHeaderLen is the fixed part before the body: len, crc, type.
const frameHeaderLen = 4 + 4 + 1

// Caps on the metadata a message carries; they are the wire caps of
// BROKER.md §4.2 (DATA keys 2-5), so any message the broker admitted fits.
const (
	MaxTopicBytes       = 256
	MaxContentTypeBytes = 256
	MaxTraceparentBytes = 128
	MaxTracestateBytes  = 512
)

// absentField is the length prefix of an optional string that is not
// present, so that "absent" and "present but empty" stay distinct.
const absentField = 0xFFFF

const (
	admitFixedLen = 8 + 32 + 8 + 4*2 // seq, digest, body_len, four u16 length prefixes
	// maxRecordBody caps a length read from disk before anything is
	// allocated: a bigger length is corruption, never an allocation.
	maxRecordBody = admitFixedLen + MaxTopicBytes + MaxContentTypeBytes +
		MaxTraceparentBytes + MaxTracestateBytes + MaxInlineBodyBytes
	maxFrameLen = frameHeaderLen + maxRecordBody
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crc32c is the checksum of every record and cell (hardware-accelerated on
// amd64 and arm64).
func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// record is one decoded journal record; which fields mean something depends
// on typ.
type record struct {
	typ     byte
	seq     uint64
	count   uint64 // ATTEMPT only
	digest  [32]byte
	bodyLen uint64
	meta    Meta
	inline  []byte // ADMIT_INLINE only: the body
	reason  []byte // QUARANTINE only
}

// isAdmit reports whether r admits a message (ADMIT or ADMIT_INLINE).
func (r *record) isAdmit() bool { return r.typ == recAdmit || r.typ == recAdmitInline }

// errTruncated reports a frame that extends past the end of the data: the
// shape of a write that was cut short.
var errTruncated = errors.New("record extends past the end of the data")

// metaField describes one optional string of Meta for encoding and decoding.
type metaField struct {
	name string
	val  *[]byte
	has  *bool
	max  int
}

// fields lists m's optional strings in their on-disk order.
func (m *Meta) fields() [4]metaField {
	return [4]metaField{
		{"topic", &m.Topic, &m.HasTopic, MaxTopicBytes},
		{"content_type", &m.ContentType, &m.HasContentType, MaxContentTypeBytes},
		{"traceparent", &m.Traceparent, &m.HasTraceparent, MaxTraceparentBytes},
		{"tracestate", &m.Tracestate, &m.HasTracestate, MaxTracestateBytes},
	}
}

// appendRecord appends r's frame to dst. The caller has checked the Meta caps.
func appendRecord(dst []byte, r *record) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, frameHeaderLen)...)
	dst[start+8] = r.typ
	dst = binary.LittleEndian.AppendUint64(dst, r.seq)
	switch r.typ {
	case recAdmit, recAdmitInline:
		dst = append(dst, r.digest[:]...)
		dst = binary.LittleEndian.AppendUint64(dst, r.bodyLen)
		for _, f := range r.meta.fields() {
			if !*f.has {
				dst = binary.LittleEndian.AppendUint16(dst, absentField)
				continue
			}
			dst = binary.LittleEndian.AppendUint16(dst, uint16(len(*f.val)))
			dst = append(dst, *f.val...)
		}
		dst = append(dst, r.inline...) // empty unless ADMIT_INLINE
	case recAttempt:
		dst = binary.LittleEndian.AppendUint64(dst, r.count)
	case recQuarantine:
		reason := r.reason[:min(len(r.reason), MaxQuarantineReasonBytes)]
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(reason)))
		dst = append(dst, reason...)
	}
	frame := dst[start:]
	binary.LittleEndian.PutUint32(frame[0:], uint32(len(frame)-frameHeaderLen))
	binary.LittleEndian.PutUint32(frame[4:], crc32c(frame[8:]))
	return dst
}

// decodeRecord decodes the frame at the start of data and returns the record
// and the frame's length. It returns errTruncated when data ends inside the
// frame, and a descriptive error for any other damage: a length over the cap,
// a CRC mismatch, an unknown type or a body that does not parse.
func decodeRecord(data []byte) (record, int, error) {
	if len(data) < frameHeaderLen {
		return record{}, 0, errTruncated
	}
	bodyLen, err := frameBodyLen(data)
	if err != nil {
		return record{}, 0, err
	}
	n := frameHeaderLen + bodyLen
	if len(data) < n {
		return record{}, 0, errTruncated
	}
	if got, want := crc32c(data[8:n]), binary.LittleEndian.Uint32(data[4:]); got != want {
		return record{}, 0, fmt.Errorf("record checksum %08x, header says %08x", got, want)
	}
	r, err := decodeBody(data[8], data[frameHeaderLen:n])
	return r, n, err
}

// frameBodyLen reads the length field of a frame header and checks it
// against the cap before anyone allocates or reads that many bytes.
func frameBodyLen(header []byte) (int, error) {
	n := binary.LittleEndian.Uint32(header)
	if n > maxRecordBody {
		return 0, fmt.Errorf("record length %d exceeds the cap %d", n, maxRecordBody)
	}
	return int(n), nil
}

// decodeBody parses a CRC-checked body of the given type.
func decodeBody(typ byte, body []byte) (record, error) {
	r := record{typ: typ}
	switch typ {
	case recAdmit, recAdmitInline:
		return r, decodeAdmit(&r, body)
	case recSettle:
		if len(body) != 8 {
			return r, fmt.Errorf("SETTLE body is %d bytes, want 8", len(body))
		}
	case recAttempt:
		if len(body) != 16 {
			return r, fmt.Errorf("ATTEMPT body is %d bytes, want 16", len(body))
		}
		r.count = binary.LittleEndian.Uint64(body[8:])
	case recQuarantine:
		if len(body) < 10 {
			return r, fmt.Errorf("QUARANTINE body is %d bytes, shorter than its fixed fields", len(body))
		}
		n := int(binary.LittleEndian.Uint16(body[8:]))
		if n > MaxQuarantineReasonBytes || len(body) != 10+n {
			return r, fmt.Errorf("QUARANTINE body is %d bytes with a %d-byte reason (cap %d)", len(body), n, MaxQuarantineReasonBytes)
		}
		r.reason = append([]byte(nil), body[10:]...)
	default:
		return r, fmt.Errorf("unknown record type %d", typ)
	}
	r.seq = binary.LittleEndian.Uint64(body)
	return r, nil
}

// decodeAdmit parses an ADMIT or ADMIT_INLINE body into r (r.typ says
// which), copying the metadata and any inline body out of body into one
// allocation so the caller may reuse its buffer.
func decodeAdmit(r *record, body []byte) error {
	if len(body) < admitFixedLen {
		return fmt.Errorf("ADMIT body is %d bytes, shorter than its fixed fields", len(body))
	}
	r.seq = binary.LittleEndian.Uint64(body)
	copy(r.digest[:], body[8:40])
	r.bodyLen = binary.LittleEndian.Uint64(body[40:])
	inline := r.typ == recAdmitInline
	if inline && r.bodyLen > MaxInlineBodyBytes {
		return fmt.Errorf("ADMIT_INLINE body_len %d exceeds the inline cap %d", r.bodyLen, MaxInlineBodyBytes)
	}
	rest := body[48:]
	strings := make([]byte, 0, len(rest))
	for _, f := range r.meta.fields() {
		if len(rest) < 2 {
			return fmt.Errorf("ADMIT body ends before the %s length", f.name)
		}
		n := int(binary.LittleEndian.Uint16(rest))
		rest = rest[2:]
		if n == absentField {
			continue
		}
		if n > f.max {
			return fmt.Errorf("ADMIT %s is %d bytes, over the cap %d", f.name, n, f.max)
		}
		if len(rest) < n {
			return fmt.Errorf("ADMIT body ends inside the %s", f.name)
		}
		at := len(strings)
		strings = append(strings, rest[:n]...)
		*f.val, *f.has = strings[at:len(strings):len(strings)], true
		rest = rest[n:]
	}
	if inline {
		if uint64(len(rest)) != r.bodyLen {
			return fmt.Errorf("ADMIT_INLINE holds %d body bytes, body_len says %d", len(rest), r.bodyLen)
		}
		at := len(strings)
		strings = append(strings, rest...)
		r.inline, rest = strings[at:len(strings):len(strings)], nil
	}
	if len(rest) != 0 {
		return fmt.Errorf("ADMIT body has %d trailing bytes", len(rest))
	}
	return nil
}
