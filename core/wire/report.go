package wire

// REPORT (kind 8, PROTOCOL.md §8.9): a path report stream. Its head header
// is the empty map; after it come records [len varint][CBOR map], each at
// most MaxReportRecordLen bytes, until FIN. Every record key is an optional
// uint; an absent key means the sender does not know the figure.

// MaxReportRecordLen caps one record's map, checked before it is buffered.
const MaxReportRecordLen = 256

var reportRecordKeys = []string{
	"rtt_us", "min_rtt_us", "cwnd", "congestion_events", "lost_packets", "lost_bytes",
	"sent_packets", "current_mtu", "tx_datagrams", "tx_bytes", "rx_datagrams", "rx_bytes",
}

// ReportHead is the REPORT head header: the empty map A0.
type ReportHead struct{}

// AppendHeader appends the empty map.
func (ReportHead) AppendHeader(b []byte) []byte { return appendHead(b, majorMap, 0) }

// DecodeReportHead decodes a REPORT head header: a map whose keys, none of
// them defined, are all skipped.
func DecodeReportHead(hdr []byte) (ReportHead, error) {
	r := reader{buf: hdr}
	m, err := openHeader(&r, "REPORT head", nil)
	if err != nil {
		return ReportHead{}, err
	}
	return ReportHead{}, m.walk(&r, 0, func(uint64) error { return r.skip() })
}

// PathReport is one REPORT record: what the sender's QUIC stack measures
// of the path. Each field is the record key of its position (0..=11).
type PathReport struct {
	RTTMicros        Opt[uint64] // key 0, smoothed RTT in µs
	MinRTTMicros     Opt[uint64] // key 1
	CongestionWindow Opt[uint64] // key 2, bytes
	CongestionEvents Opt[uint64] // key 3
	LostPackets      Opt[uint64] // key 4
	LostBytes        Opt[uint64] // key 5
	SentPackets      Opt[uint64] // key 6
	CurrentMTU       Opt[uint64] // key 7
	TxDatagrams      Opt[uint64] // key 8
	TxBytes          Opt[uint64] // key 9
	RxDatagrams      Opt[uint64] // key 10
	RxBytes          Opt[uint64] // key 11
}

// fields lists the record's fields in key order.
func (p *PathReport) fields() [12]*Opt[uint64] {
	return [12]*Opt[uint64]{&p.RTTMicros, &p.MinRTTMicros, &p.CongestionWindow, &p.CongestionEvents,
		&p.LostPackets, &p.LostBytes, &p.SentPackets, &p.CurrentMTU, &p.TxDatagrams, &p.TxBytes,
		&p.RxDatagrams, &p.RxBytes}
}

// AppendReportRecord appends one record, its length and then its map of
// the present fields. Twelve uints take at most 121 bytes, so a record is
// always within MaxReportRecordLen.
func AppendReportRecord(b []byte, p *PathReport) []byte {
	var buf [128]byte
	fields := p.fields()
	var present uint64
	for _, f := range fields {
		present += count1(f.Ok)
	}
	m := appendHead(buf[:0], majorMap, present)
	for key, f := range fields {
		if f.Ok {
			m = appendUintKey(m, uint64(key), f.V)
		}
	}
	return append(AppendVarint(b, uint64(len(m))), m...)
}

// ParseReportRecord parses the record at the start of b and returns it with
// its encoded length. A b holding only part of a record yields ErrNeedMore
// (read more; at FIN see CheckReportRecordEnd). A length above
// MaxReportRecordLen is a violation as soon as the length is complete, so
// no reader buffers more than that for one record.
func ParseReportRecord(b []byte) (PathReport, int, error) {
	size, n, err := ParseVarint(b)
	if err != nil {
		return PathReport{}, 0, err
	}
	if size > MaxReportRecordLen {
		return PathReport{}, 0, violation("REPORT record of %d bytes exceeds its cap of %d", size, MaxReportRecordLen)
	}
	if uint64(len(b)-n) < size {
		return PathReport{}, 0, ErrNeedMore
	}
	p, err := decodeReportRecord(b[n : n+int(size)])
	if err != nil {
		return PathReport{}, 0, err
	}
	return p, n + int(size), nil
}

// decodeReportRecord decodes one record's map: known keys must hold uints,
// unknown keys are skipped (§7.2).
func decodeReportRecord(rec []byte) (PathReport, error) {
	var p PathReport
	fields := p.fields()
	r := reader{buf: rec}
	m, err := openHeader(&r, "REPORT record", reportRecordKeys)
	if err != nil {
		return PathReport{}, err
	}
	err = m.walk(&r, 0, func(key uint64) (err error) {
		if key >= uint64(len(fields)) {
			return r.skip()
		}
		fields[key].V, err = r.uint()
		fields[key].Ok = err == nil
		return err
	})
	if err != nil {
		return PathReport{}, err
	}
	return p, nil
}

// CheckReportRecordEnd judges the bytes left unparsed when a REPORT stream
// reaches FIN: none is a clean end; anything else is a record cut short by
// the FIN, a violation.
func CheckReportRecordEnd(rest []byte) error {
	if len(rest) == 0 {
		return nil
	}
	return violation("REPORT record cut short by FIN after %d bytes", len(rest))
}
