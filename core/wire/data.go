package wire

import "unicode/utf8"

// DATA (kind 1, PROTOCOL.md §8.3): the header of every payload.

// Data is the DATA header (kind 1, PROTOCOL.md §8.3). Every key is optional
// at the decoder; contextual requirements are checked at dispatch.
type Data struct {
	Endpoint        Opt[string]   // key 0, <= 512 B
	ContentLen      Opt[uint64]   // key 1, advisory
	ContentType     Opt[string]   // key 2, <= 256 B
	Traceparent     Opt[string]   // key 3, <= 128 B
	Tracestate      Opt[string]   // key 4, <= 512 B
	Topic           Opt[string]   // key 5, <= 256 B
	Sequence        Opt[uint64]   // key 6
	Producer        Opt[[32]byte] // key 7, exactly 32 B
	Achieved        Opt[uint64]   // key 8, 0..=5
	ReportID        Opt[uint64]   // key 9, travels with key 10
	Report          []uint64      // key 10, 1..16 strictly ascending levels; nil = absent
	ReportMode      uint64        // key 11, 0 progress (never written) or 1 final-only
	DeliveryAttempt Opt[uint64]   // key 12, written only when >= 2
	Segment         Opt[uint64]   // key 13
	Layer           uint64        // key 14, 0..=15, 0 never written, only with key 13
}

var dataKeys = []string{
	"endpoint", "content_len", "content_type", "traceparent", "tracestate", "topic",
	"sequence", "producer", "achieved", "report_id", "report", "report_mode",
	"delivery_attempt", "segment", "layer",
}

// AppendHeader appends the DATA map: present keys in key order, defaults
// omitted (report_mode 0, layer 0, delivery_attempt below 2, an empty
// report). The report order is written sorted and de-duplicated, without
// changing d.Report.
//
// Values are written as given: the caller keeps them within §8.3 (string
// caps, achieved <= 5, layer <= 15 and only with a segment, report_id
// exactly when there is a report, no report level in 6..=15), as a peer
// rejects a header that breaks them.
func (d *Data) AppendHeader(b []byte) []byte {
	var scratch [MaxReportLevels]uint64
	report := normalizeReport(d.Report, scratch[:0])
	attempt := d.DeliveryAttempt.Ok && d.DeliveryAttempt.V >= 2
	n := count1(d.Endpoint.Ok) + count1(d.ContentLen.Ok) + count1(d.ContentType.Ok) +
		count1(d.Traceparent.Ok) + count1(d.Tracestate.Ok) + count1(d.Topic.Ok) +
		count1(d.Sequence.Ok) + count1(d.Producer.Ok) + count1(d.Achieved.Ok) +
		count1(d.ReportID.Ok) + count1(len(report) > 0) + count1(d.ReportMode != 0) +
		count1(attempt) + count1(d.Segment.Ok) + count1(d.Layer != 0)
	b = appendHead(b, majorMap, n)
	if d.Endpoint.Ok {
		b = appendTextKey(b, 0, d.Endpoint.V)
	}
	if d.ContentLen.Ok {
		b = appendUintKey(b, 1, d.ContentLen.V)
	}
	if d.ContentType.Ok {
		b = appendTextKey(b, 2, d.ContentType.V)
	}
	if d.Traceparent.Ok {
		b = appendTextKey(b, 3, d.Traceparent.V)
	}
	if d.Tracestate.Ok {
		b = appendTextKey(b, 4, d.Tracestate.V)
	}
	if d.Topic.Ok {
		b = appendTextKey(b, 5, d.Topic.V)
	}
	if d.Sequence.Ok {
		b = appendUintKey(b, 6, d.Sequence.V)
	}
	if d.Producer.Ok {
		b = appendBytesKey(b, 7, d.Producer.V[:])
	}
	if d.Achieved.Ok {
		b = appendUintKey(b, 8, d.Achieved.V)
	}
	if d.ReportID.Ok {
		b = appendUintKey(b, 9, d.ReportID.V)
	}
	if len(report) > 0 {
		b = appendUintsKey(b, 10, report)
	}
	if d.ReportMode != 0 {
		b = appendUintKey(b, 11, d.ReportMode)
	}
	if attempt {
		b = appendUintKey(b, 12, d.DeliveryAttempt.V)
	}
	if d.Segment.Ok {
		b = appendUintKey(b, 13, d.Segment.V)
	}
	if d.Layer != 0 {
		b = appendUintKey(b, 14, d.Layer)
	}
	return b
}

// normalizeReport returns levels sorted and de-duplicated. Levels that are
// already strictly ascending (the usual case) are returned as they are;
// otherwise they are copied into scratch, or into a fresh slice if they do
// not fit, so the caller's slice is never reordered.
func normalizeReport(levels, scratch []uint64) []uint64 {
	ascending := true
	for i := 1; i < len(levels); i++ {
		if levels[i] <= levels[i-1] {
			ascending = false
			break
		}
	}
	if ascending {
		return levels
	}
	out := append(scratch, levels...)
	for i := 1; i < len(out); i++ { // insertion sort: at most a handful of levels
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	w := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[w-1] {
			out[w] = out[i]
			w++
		}
	}
	return out[:w]
}

// DecodeData decodes a DATA header. Every key is optional here; whether a
// stream needs `endpoint` is decided at dispatch (CheckInitiating).
//
// Beyond the per-key rules (caps, types, achieved <= 5, report_mode <= 1,
// layer <= 15, producer exactly 32 bytes, report strictly ascending with at
// most 16 levels and none in 6..=15), keys 9 and 10 must travel together
// and a layer needs a segment. Three edge cases decode to their default
// meaning (§17 item 12), so a re-encoded header simply omits them: an empty
// report (0A 80) without report_id is "no report"; layer 0 written
// explicitly, with or without a segment (A1 0E 00), is "no layer"; and a
// delivery_attempt below 2 is "first attempt" (absent).
func DecodeData(hdr []byte) (d Data, err error) {
	// d is the named result so that the decoder fills the caller's value
	// in place: copying a 296-byte local out on return was a fifth of a
	// minimal decode.
	if err := d.decode(hdr, ""); err != nil {
		return Data{}, err
	}
	return d, nil
}

// Decode is DecodeData into d, which must be the zero Data: a caller that
// keeps the header inside a larger value decodes it where it lives. On
// failure d is the zero Data again.
func (d *Data) Decode(hdr []byte) error { return d.DecodeKnown(hdr, "") }

// DecodeKnown is Decode given the endpoint the caller expects: when the
// header's endpoint equals it, d.Endpoint.V is known itself, so a stream to
// a path seen before costs no copy of the path.
func (d *Data) DecodeKnown(hdr []byte, known string) error {
	if err := d.decode(hdr, known); err != nil {
		*d = Data{}
		return err
	}
	return nil
}

// decode decodes hdr into d (see DecodeData and DecodeKnown).
func (d *Data) decode(hdr []byte, known string) error {
	if d.decodeMinimal(hdr, known) {
		return nil
	}
	return d.decodeWalk(hdr, known)
}

// decodeMinimal decodes, without the general walk, the headers nearly
// every message carries: a map of at most four of the keys endpoint (0),
// content_len (1), topic (5) and sequence (6), in ascending order, each
// key one byte and each text shorter than 24 bytes. That covers a reply
// (A0), a request (its path), a whole one-way message (path and length),
// a fan-out copy (and its topic) and a numbered one (and its sequence).
// For any other header it decides nothing and reports false, leaving d
// as it was. What it accepts it decodes exactly as decodeWalk does: such a
// map is well-formed, its texts are within their caps, so their only rule
// left is UTF-8, and any uint is valid for either key (at any width: a
// non-minimal argument too, §17 item 3).
func (d *Data) decodeMinimal(hdr []byte, known string) bool {
	if len(hdr) == 1 && hdr[0] == majorMap<<5 {
		return true // a reply's empty map, the commonest header of all
	}
	if len(hdr) == 0 || hdr[0]>>5 != majorMap || hdr[0]&0x1F > 4 {
		return false
	}
	var (
		path, topic       []byte
		contentLen, seq   Opt[uint64]
		hasPath, hasTopic bool
		rest              = hdr[1:]
		prev              = -1
	)
	for range hdr[0] & 0x1F {
		if len(rest) == 0 || int(rest[0]) <= prev {
			return false
		}
		key := rest[0]
		prev = int(key)
		var ok bool
		switch key {
		case 0:
			path, rest, ok = shortText(rest[1:])
			hasPath = true
		case 5:
			topic, rest, ok = shortText(rest[1:])
			hasTopic = true
		case 1:
			contentLen.V, rest, ok = anyUint(rest[1:])
			contentLen.Ok = true
		case 6:
			seq.V, rest, ok = anyUint(rest[1:])
			seq.Ok = true
		}
		if !ok {
			return false // another key, or a value of another shape
		}
	}
	if len(rest) != 0 || !utf8.Valid(path) || !utf8.Valid(topic) {
		return false
	}
	if hasPath {
		if string(path) == known {
			d.Endpoint = Some(known)
		} else {
			d.Endpoint = Some(string(path))
		}
	}
	if hasTopic {
		d.Topic = Some(string(topic))
	}
	d.ContentLen, d.Sequence = contentLen, seq
	return true
}

// shortText splits off b's first item when it is a text string shorter
// than 24 bytes (its length in the head byte).
func shortText(b []byte) (text, rest []byte, ok bool) {
	if len(b) == 0 || b[0]>>5 != majorText {
		return nil, nil, false
	}
	n := int(b[0] & 0x1F)
	if n >= 24 || len(b) < 1+n {
		return nil, nil, false
	}
	return b[1 : 1+n], b[1+n:], true
}

// anyUint splits off b's first item when it is an unsigned integer, its
// argument of any width.
func anyUint(b []byte) (v uint64, rest []byte, ok bool) {
	if len(b) == 0 || b[0]>>5 != majorUint {
		return 0, nil, false
	}
	ai := b[0] & 0x1F
	if ai < 24 {
		return uint64(ai), b[1:], true
	}
	if ai > aiDouble || len(b) < 1+1<<(ai-24) {
		return 0, nil, false
	}
	arg := b[1 : 1+1<<(ai-24)]
	for _, c := range arg {
		v = v<<8 | uint64(c)
	}
	return v, b[1+len(arg):], true
}

// decodeWalk walks hdr into d: layers 1 and 2 for any DATA header.
func (d *Data) decodeWalk(hdr []byte, known string) error {
	r := reader{buf: hdr}
	m, err := openHeader(&r, "DATA", dataKeys)
	if err != nil {
		return err
	}
	var texts [6]textSpan // keys 0 and 2..=5, joined after the walk
	reportKey := false    // key 10 present, even if empty
	for {
		key, more, err := m.next(&r)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch key {
		case 0:
			texts[0], err = r.textSpan(CapEndpoint)
			d.Endpoint.Ok = true
		case 1:
			d.ContentLen, err = optUint(&r)
		case 2:
			texts[2], err = r.textSpan(CapContentType)
			d.ContentType.Ok = true
		case 3:
			texts[3], err = r.textSpan(CapTraceparent)
			d.Traceparent.Ok = true
		case 4:
			texts[4], err = r.textSpan(CapTracestate)
			d.Tracestate.Ok = true
		case 5:
			texts[5], err = r.textSpan(CapTopic)
			d.Topic.Ok = true
		case 6:
			d.Sequence, err = optUint(&r)
		case 7:
			err = r.bytesExact(d.Producer.V[:])
			d.Producer.Ok = true
		case 8:
			d.Achieved.V, err = r.uintMax(LevelProcessed)
			d.Achieved.Ok = true
		case 9:
			d.ReportID, err = optUint(&r)
		case 10:
			d.Report, err = r.report()
			reportKey = true
		case 11:
			d.ReportMode, err = r.uintMax(1)
		case 12:
			var attempt uint64
			if attempt, err = r.uint(); attempt >= 2 {
				d.DeliveryAttempt = Some(attempt)
			}
		case 13:
			d.Segment, err = optUint(&r)
		case 14:
			d.Layer, err = r.uintMax(MaxLayer)
		default:
			err = r.skip()
		}
		if err != nil {
			return m.keyError(key, err)
		}
	}
	switch {
	case d.ReportID.Ok && len(d.Report) == 0 && reportKey:
		return violation("DATA key 9 (report_id) with an empty report (key 10)")
	case d.ReportID.Ok && len(d.Report) == 0:
		return violation("DATA key 9 (report_id) without report (key 10)")
	case !d.ReportID.Ok && len(d.Report) > 0:
		return violation("DATA key 10 (report) without report_id (key 9)")
	case d.Layer != 0 && !d.Segment.Ok:
		return violation("DATA key 14 (layer) without segment (key 13)")
	}
	var out [6]string
	ep := texts[0]
	isKnown := d.Endpoint.Ok && ep.n == len(known) && string(hdr[ep.off:ep.off+ep.n]) == known
	if isKnown {
		texts[0] = textSpan{} // not copied: known stands for it
	}
	joinTexts(hdr, texts[:], out[:])
	d.Endpoint.V, d.ContentType.V, d.Traceparent.V, d.Tracestate.V, d.Topic.V = out[0], out[2], out[3], out[4], out[5]
	if isKnown {
		d.Endpoint.V = known
	}
	return nil
}

// CheckInitiating applies the one contextual rule of a stream that
// initiates a transfer (every uni DATA stream and the initiating half of a
// bidi stream): endpoint is required (§8.3.1). A reply half needs nothing.
func (d *Data) CheckInitiating() error {
	if !d.Endpoint.Ok {
		return violation("DATA on an initiating stream without key 0 (endpoint)")
	}
	return nil
}

// report reads a report order: at most 16 levels, strictly ascending, none
// in the reserved range. An empty array is nil.
func (r *reader) report() ([]uint64, error) {
	n, err := r.arrayLen(MaxReportLevels)
	if err != nil || n == 0 {
		return nil, err
	}
	levels := make([]uint64, n)
	for i := range levels {
		v, err := r.uint()
		if err != nil {
			return nil, err
		}
		switch {
		case LevelReserved(v):
			return nil, violation("level %d is reserved (6..=15)", v)
		case i > 0 && v == levels[i-1]:
			return nil, violation("level %d repeated, levels must strictly ascend", v)
		case i > 0 && v < levels[i-1]:
			return nil, violation("levels not strictly ascending: %d after %d", v, levels[i-1])
		}
		levels[i] = v
	}
	return levels, nil
}
