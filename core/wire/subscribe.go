package wire

// SUBSCRIBE and UNSUBSCRIBE (kinds 3 and 4, PROTOCOL.md §8.4): one header,
// two kinds; AppendFrame's kind argument says which.

// Subscribe is the SUBSCRIBE / UNSUBSCRIBE header (kinds 3 and 4).
type Subscribe struct {
	Endpoint string      // key 0, required
	Filter   string      // key 1, required (may be empty)
	MaxAgeMs Opt[uint64] // key 2
	MaxLayer Opt[uint64] // key 3, 0..=15
}

var subscribeKeys = []string{"endpoint", "filter", "max_age_ms", "max_layer"}

// AppendHeader appends the SUBSCRIBE/UNSUBSCRIBE map. endpoint and filter
// are always written, an empty filter as 60.
func (s *Subscribe) AppendHeader(b []byte) []byte {
	b = appendHead(b, majorMap, 2+count1(s.MaxAgeMs.Ok)+count1(s.MaxLayer.Ok))
	b = appendTextKey(b, 0, s.Endpoint)
	b = appendTextKey(b, 1, s.Filter)
	if s.MaxAgeMs.Ok {
		b = appendUintKey(b, 2, s.MaxAgeMs.V)
	}
	if s.MaxLayer.Ok {
		b = appendUintKey(b, 3, s.MaxLayer.V)
	}
	return b
}

// DecodeSubscribe decodes a SUBSCRIBE or UNSUBSCRIBE header: endpoint and
// filter are required, the filter must pass ValidateFilter, and max_layer
// must be at most 15.
func DecodeSubscribe(hdr []byte) (Subscribe, error) {
	var s Subscribe
	r := reader{buf: hdr}
	m, err := openHeader(&r, "SUBSCRIBE", subscribeKeys)
	if err != nil {
		return Subscribe{}, err
	}
	var texts [2]textSpan // endpoint and filter, joined after the walk
	err = m.walk(&r, 2, func(key uint64) (err error) {
		switch key {
		case 0:
			texts[0], err = r.textSpan(CapEndpoint)
		case 1:
			texts[1], err = r.textSpan(CapFilter)
		case 2:
			s.MaxAgeMs, err = optUint(&r)
		case 3:
			s.MaxLayer.V, err = r.uintMax(MaxLayer)
			s.MaxLayer.Ok = true
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return Subscribe{}, err
	}
	var out [2]string
	joinTexts(hdr, texts[:], out[:])
	s.Endpoint, s.Filter = out[0], out[1]
	if err := ValidateFilter(s.Filter); err != nil {
		return Subscribe{}, m.keyError(1, err)
	}
	return s, nil
}
