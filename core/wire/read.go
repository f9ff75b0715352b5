package wire

import (
	"errors"
	"io"
)

// ReadHeader reads one preamble and its header from r, and not one byte
// more: the payload (DATA) or records (CURSOR) that follow stay in r.
//
// It reads in as few calls as the varint allows: the first three bytes
// (magic, kind, first varint byte), the rest of the varint if it is longer
// than one byte, then the header. buf is scratch space: the returned header
// lies inside it when cap(buf) suffices; otherwise it is a fresh slice of
// exactly header_len bytes, allocated only after header_len passed the
// maxHeader check.
//
// A stream that ends anywhere before the header is complete, including
// before its first byte, is a *ViolationError (PROTOCOL.md §5.4 and the
// README decision on FIN inside a header). Any other read error is returned
// unchanged: it is a transport failure, not a violation.
func ReadHeader(r io.Reader, maxHeader uint64, buf []byte) (Kind, []byte, error) {
	scratch := buf[:cap(buf)]
	if len(scratch) < MaxPreambleLen {
		scratch = make([]byte, MaxPreambleLen)
	}
	if err := readFull(r, scratch[:3], "preamble"); err != nil {
		return 0, nil, err
	}
	p, _, err := ParsePreamble(scratch[:3], maxHeader)
	if errors.Is(err, ErrNeedMore) {
		n := 2 + varintLenOf(scratch[2])
		if err := readFull(r, scratch[3:n], "preamble"); err != nil {
			return 0, nil, err
		}
		p, _, err = ParsePreamble(scratch[:n], maxHeader)
	}
	if err != nil {
		return 0, nil, err
	}
	var hdr []byte
	if p.HeaderLen <= uint64(cap(buf)) {
		hdr = buf[:p.HeaderLen]
	} else {
		hdr = make([]byte, p.HeaderLen)
	}
	if err := readFull(r, hdr, "header"); err != nil {
		return 0, nil, err
	}
	return p.Kind, hdr, nil
}

// readFull is io.ReadFull with the end of the stream turned into the
// violation it is here.
func readFull(r io.Reader, p []byte, where string) error {
	_, err := io.ReadFull(r, p)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return violation("stream ended inside the %s", where)
	}
	return err
}
