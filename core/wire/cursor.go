package wire

// CURSOR (kind 6, PROTOCOL.md §8.6): a head header naming the report, then
// raw (level, offset) varint records until FIN.

// CursorHead is the CURSOR head header (kind 6).
type CursorHead struct {
	ReportID uint64 // key 0, required
}

var cursorKeys = []string{"report_id"}

// AppendHeader appends the CURSOR head map {0: report_id}.
func (c *CursorHead) AppendHeader(b []byte) []byte {
	return appendUintKey(appendHead(b, majorMap, 1), 0, c.ReportID)
}

// DecodeCursorHead decodes a CURSOR head header; report_id is required.
func DecodeCursorHead(hdr []byte) (CursorHead, error) {
	var c CursorHead
	r := reader{buf: hdr}
	m, err := openHeader(&r, "CURSOR head", cursorKeys)
	if err != nil {
		return CursorHead{}, err
	}
	err = m.walk(&r, 1, func(key uint64) (err error) {
		if key == 0 {
			c.ReportID, err = r.uint()
		} else {
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return CursorHead{}, err
	}
	return c, nil
}

// CursorRecord is one (level, offset) varint pair after a CURSOR head.
type CursorRecord struct {
	Level  uint64
	Offset uint64
}

// AppendCursorRecord appends one record: the shortest varints of level and
// offset. Like AppendVarint it panics on a value above MaxVarint.
func AppendCursorRecord(b []byte, r CursorRecord) []byte {
	return AppendVarint(AppendVarint(b, r.Level), r.Offset)
}

// ParseCursorRecord parses the record at the start of b and returns it with
// its encoded length. A b that holds only part of a record yields
// ErrNeedMore (read more; at FIN see CheckCursorRecordEnd). A level in the
// reserved range 6..=15 is a violation, reported as soon as the level is
// complete.
func ParseCursorRecord(b []byte) (CursorRecord, int, error) {
	level, n, err := ParseVarint(b)
	if err != nil {
		return CursorRecord{}, 0, err
	}
	if LevelReserved(level) {
		return CursorRecord{}, 0, violation("CURSOR record: level %d is reserved (6..=15)", level)
	}
	offset, m, err := ParseVarint(b[n:])
	if err != nil {
		return CursorRecord{}, 0, err
	}
	return CursorRecord{Level: level, Offset: offset}, n + m, nil
}

// CheckCursorRecordEnd judges the bytes left unparsed when a CURSOR stream
// reaches FIN: none is a clean end; anything else is a record cut off by
// FIN, a violation (§8.6.2 rule 4). A reader parses records with
// ParseCursorRecord until it returns ErrNeedMore, reads more, and at FIN
// passes what is left here.
func CheckCursorRecordEnd(rest []byte) error {
	if len(rest) == 0 {
		return nil
	}
	return violation("CURSOR record cut off by FIN after %d bytes", len(rest))
}
