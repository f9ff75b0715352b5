package wire

// FLOW (kind 7, PROTOCOL.md §8.7): registers a datagram flow for the
// lifetime of its stream.

// Flow is the FLOW header (kind 7).
type Flow struct {
	Endpoint    string      // key 0, required
	Flow        uint64      // key 1, required
	ContentType Opt[string] // key 2
	Traceparent Opt[string] // key 3
	Tracestate  Opt[string] // key 4
	Topic       Opt[string] // key 5
}

var flowKeys = []string{"endpoint", "flow", "content_type", "traceparent", "tracestate", "topic"}

// AppendHeader appends the FLOW map; endpoint and flow are always written.
func (f *Flow) AppendHeader(b []byte) []byte {
	b = appendHead(b, majorMap, 2+count1(f.ContentType.Ok)+count1(f.Traceparent.Ok)+
		count1(f.Tracestate.Ok)+count1(f.Topic.Ok))
	b = appendTextKey(b, 0, f.Endpoint)
	b = appendUintKey(b, 1, f.Flow)
	if f.ContentType.Ok {
		b = appendTextKey(b, 2, f.ContentType.V)
	}
	if f.Traceparent.Ok {
		b = appendTextKey(b, 3, f.Traceparent.V)
	}
	if f.Tracestate.Ok {
		b = appendTextKey(b, 4, f.Tracestate.V)
	}
	if f.Topic.Ok {
		b = appendTextKey(b, 5, f.Topic.V)
	}
	return b
}

// DecodeFlow decodes a FLOW header: endpoint and flow are required.
func DecodeFlow(hdr []byte) (Flow, error) {
	var f Flow
	r := reader{buf: hdr}
	m, err := openHeader(&r, "FLOW", flowKeys)
	if err != nil {
		return Flow{}, err
	}
	var texts [6]textSpan // keys 0 and 2..=5, joined after the walk
	err = m.walk(&r, 2, func(key uint64) (err error) {
		switch key {
		case 0:
			texts[0], err = r.textSpan(CapEndpoint)
		case 1:
			f.Flow, err = r.uint()
		case 2:
			texts[2], err = r.textSpan(CapContentType)
			f.ContentType.Ok = true
		case 3:
			texts[3], err = r.textSpan(CapTraceparent)
			f.Traceparent.Ok = true
		case 4:
			texts[4], err = r.textSpan(CapTracestate)
			f.Tracestate.Ok = true
		case 5:
			texts[5], err = r.textSpan(CapTopic)
			f.Topic.Ok = true
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return Flow{}, err
	}
	var out [6]string
	joinTexts(hdr, texts[:], out[:])
	f.Endpoint, f.ContentType.V, f.Traceparent.V, f.Tracestate.V, f.Topic.V = out[0], out[2], out[3], out[4], out[5]
	return f, nil
}
