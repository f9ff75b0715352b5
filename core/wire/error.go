package wire

// ERROR (kind 2, PROTOCOL.md §10.1): the failure answer on a reply half.

var errorKeys = []string{"code"}

// AppendHeader appends the ERROR map {0: code}.
func (e *ErrorFrame) AppendHeader(b []byte) []byte {
	return appendUintKey(appendHead(b, majorMap, 1), 0, e.Code)
}

// DecodeError decodes an ERROR header. Key 0 is required; any code decodes,
// since an unknown code is a generic failure of the exchange, not a
// framing violation.
func DecodeError(hdr []byte) (ErrorFrame, error) {
	var e ErrorFrame
	r := reader{buf: hdr}
	m, err := openHeader(&r, "ERROR", errorKeys)
	if err != nil {
		return ErrorFrame{}, err
	}
	err = m.walk(&r, 1, func(key uint64) (err error) {
		if key == 0 {
			e.Code, err = r.uint()
		} else {
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return ErrorFrame{}, err
	}
	return e, nil
}
