package wire

// HELLO (kind 0, PROTOCOL.md §8.1): the one frame each side sends first.

// Hello is the HELLO header (kind 0, PROTOCOL.md §8.1).
type Hello struct {
	Versions             []uint64     // key 0, required, <= 64 items
	MaxHeaderBytes       uint64       // key 1, required
	MaxTransfers         uint64       // key 2, required, advisory
	Capabilities         []uint64     // key 3, required, <= 64 items
	RequiredCapabilities []uint64     // key 4, required, <= 64 items
	Offered              GuaranteeSet // key 5, absent = core
	Required             GuaranteeSet // key 6, absent = core
}

// helloKeys names the HELLO keys for messages.
var helloKeys = []string{
	"versions", "max_header_bytes", "max_transfers", "capabilities",
	"required_capabilities", "guarantees_offered", "guarantees_required",
}

// DefaultHello returns the plain v0 HELLO: versions [0], max_header_bytes
// 16384, max_transfers 1024, no capabilities, core guarantee sets. Its frame
// is golden vector 4.
func DefaultHello() Hello {
	return Hello{
		Versions:       []uint64{Version},
		MaxHeaderBytes: DefaultMaxHeaderBytes,
		MaxTransfers:   1024,
		Offered:        CoreGuarantees(),
		Required:       CoreGuarantees(),
	}
}

// AppendHeader appends the HELLO map. Keys 0..=4 are always written (an
// empty list as 80); a guarantee set equal to core is not written, so a
// HELLO declaring only core is byte-identical to the plain v0 HELLO.
//
// Note that the zero GuaranteeSet is not core (its acknowledgement is 0,
// None); start from CoreGuarantees or DefaultHello.
func (h *Hello) AppendHeader(b []byte) []byte {
	core := CoreGuarantees()
	offered, required := h.Offered != core, h.Required != core
	b = appendHead(b, majorMap, 5+count1(offered)+count1(required))
	b = appendUintsKey(b, 0, h.Versions)
	b = appendUintKey(b, 1, h.MaxHeaderBytes)
	b = appendUintKey(b, 2, h.MaxTransfers)
	b = appendUintsKey(b, 3, h.Capabilities)
	b = appendUintsKey(b, 4, h.RequiredCapabilities)
	if offered {
		b = appendGuarantees(appendHead(b, majorUint, 5), &h.Offered)
	}
	if required {
		b = appendGuarantees(appendHead(b, majorUint, 6), &h.Required)
	}
	return b
}

// DecodeHello decodes a HELLO header. Keys 0..=4 are required; each list
// holds at most 64 items, checked before anything is reserved. Absent keys
// 5 and 6 mean core. Each guarantee set must pass ValidateGuarantees, and
// the required set must be reached by the offered one (§17 item 11); either
// failure is a violation.
func DecodeHello(hdr []byte) (Hello, error) {
	h := Hello{Offered: CoreGuarantees(), Required: CoreGuarantees()}
	r := reader{buf: hdr}
	m, err := openHeader(&r, "HELLO", helloKeys)
	if err != nil {
		return Hello{}, err
	}
	err = m.walk(&r, 5, func(key uint64) (err error) {
		switch key {
		case 0:
			h.Versions, err = r.uints(MaxListItems)
		case 1:
			h.MaxHeaderBytes, err = r.uint()
		case 2:
			h.MaxTransfers, err = r.uint()
		case 3:
			h.Capabilities, err = r.uints(MaxListItems)
		case 4:
			h.RequiredCapabilities, err = r.uints(MaxListItems)
		case 5:
			if h.Offered, err = decodeGuarantees(&r, "HELLO key 5 (guarantees_offered)"); err != nil {
				err = placed{err}
			}
		case 6:
			if h.Required, err = decodeGuarantees(&r, "HELLO key 6 (guarantees_required)"); err != nil {
				err = placed{err}
			}
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return Hello{}, err
	}
	if ok, dim := Reaches(h.Offered, h.Required); !ok {
		return Hello{}, violation("HELLO: guarantees_required is not reached by guarantees_offered (%s)", dim)
	}
	return h, nil
}

// uints reads an array of at most limit uints; an empty array is nil. The
// count is checked against limit before the slice is made.
func (r *reader) uints(limit int) ([]uint64, error) {
	n, err := r.arrayLen(limit)
	if err != nil || n == 0 {
		return nil, err
	}
	vs := make([]uint64, n)
	for i := range vs {
		if vs[i], err = r.uint(); err != nil {
			return nil, err
		}
	}
	return vs, nil
}
