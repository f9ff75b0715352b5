package wire

// CREDIT (kind 5, PROTOCOL.md §8.5): the absolute, cumulative message limit
// of one subscription on a queue path.

// Credit is the CREDIT header (kind 5).
type Credit struct {
	Endpoint string // key 0, required
	Filter   string // key 1, required
	Limit    uint64 // key 2, required
}

var creditKeys = []string{"endpoint", "filter", "limit"}

// AppendHeader appends the CREDIT map; all three keys are always written.
func (c *Credit) AppendHeader(b []byte) []byte {
	b = appendHead(b, majorMap, 3)
	b = appendTextKey(b, 0, c.Endpoint)
	b = appendTextKey(b, 1, c.Filter)
	return appendUintKey(b, 2, c.Limit)
}

// DecodeCredit decodes a CREDIT header: all three keys are required (an
// absent limit would be indistinguishable from 0), and the filter must pass
// ValidateFilter.
func DecodeCredit(hdr []byte) (Credit, error) {
	var c Credit
	r := reader{buf: hdr}
	m, err := openHeader(&r, "CREDIT", creditKeys)
	if err != nil {
		return Credit{}, err
	}
	var texts [2]textSpan // endpoint and filter, joined after the walk
	err = m.walk(&r, 3, func(key uint64) (err error) {
		switch key {
		case 0:
			texts[0], err = r.textSpan(CapEndpoint)
		case 1:
			texts[1], err = r.textSpan(CapFilter)
		case 2:
			c.Limit, err = r.uint()
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return Credit{}, err
	}
	var out [2]string
	joinTexts(hdr, texts[:], out[:])
	c.Endpoint, c.Filter = out[0], out[1]
	if err := ValidateFilter(c.Filter); err != nil {
		return Credit{}, m.keyError(1, err)
	}
	return c, nil
}
