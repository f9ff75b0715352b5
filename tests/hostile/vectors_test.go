package hostile

import (
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// badHeader is a header the victim's decoder must reject with
// PROTOCOL_VIOLATION, and the frame kind it is sent as.
type badHeader struct {
	name   string
	kind   wire.Kind
	header []byte
}

// endpointT is the CBOR pair {0: "/t"}, the smallest legal endpoint.
var endpointT = []byte{0x00, 0x62, 0x2F, 0x74}

// ascending17 is a report order of 17 ascending application levels 16..=32.
func ascending17() []byte {
	b := []byte{0x91} // array of 17
	for lvl := byte(16); lvl <= 32; lvl++ {
		b = append(b, 0x18, lvl)
	}
	return b
}

// nested is key 50 holding depth levels of one-element arrays around 1.
func nested(depth int) []byte {
	return rawpeer.Cat([]byte{0xA1, 0x18, 0x32}, rawpeer.Repeat([]byte{0x81}, depth), []byte{0x01})
}

// negativeHeaders are the negative vectors of PROTOCOL.md §15.3 and the
// remaining decoder rules of §7.2, each as the kind it is a violation of.
// Headers that are violations in any kind are sent as DATA.
var negativeHeaders = []badHeader{
	// §15.3, DATA.
	{"achieved 6 is undefined", wire.KindData, []byte{0xA1, 0x08, 0x06}},
	{"report without report_id", wire.KindData, []byte{0xA1, 0x0A, 0x81, 0x02}},
	{"report_id without report", wire.KindData, []byte{0xA1, 0x09, 0x01}},
	{"report levels not ascending", wire.KindData, []byte{0xA2, 0x09, 0x01, 0x0A, 0x82, 0x03, 0x02}},
	{"report level repeated", wire.KindData, []byte{0xA2, 0x09, 0x01, 0x0A, 0x82, 0x02, 0x02}},
	{"report level 15 is reserved", wire.KindData, []byte{0xA2, 0x09, 0x01, 0x0A, 0x81, 0x0F}},
	{"report_mode 2 is undefined", wire.KindData, []byte{0xA3, 0x09, 0x01, 0x0A, 0x81, 0x02, 0x0B, 0x02}},
	{"report of 17 levels", wire.KindData, rawpeer.Cat([]byte{0xA2, 0x09, 0x01, 0x0A}, ascending17())},
	{"layer 16", wire.KindData, []byte{0xA2, 0x0D, 0x05, 0x0E, 0x10}},
	{"layer without segment", wire.KindData, []byte{0xA1, 0x0E, 0x01}},
	{"producer of 33 bytes", wire.KindData, rawpeer.Cat([]byte{0xA1, 0x07}, rawpeer.Bytes(33))},
	{"producer of 16 bytes", wire.KindData, rawpeer.Cat([]byte{0xA1, 0x07}, rawpeer.Bytes(16))},
	{"sequence as text", wire.KindData, []byte{0xA1, 0x06, 0x61, 0x37}},
	{"duplicate key 1", wire.KindData, []byte{0xA2, 0x01, 0x01, 0x01, 0x02}},
	{"key 1 after key 2", wire.KindData, []byte{0xA3, 0x02, 0x61, 0x74, 0x01, 0x01, 0x03, 0x61, 0x70}},
	{"negative key", wire.KindData, []byte{0xA1, 0x20, 0x01}},
	{"indefinite-length map", wire.KindData, []byte{0xBF, 0x01, 0x01, 0xFF}},
	{"tag inside a skipped value", wire.KindData, []byte{0xA1, 0x18, 0x32, 0xD8, 0x18, 0x01}},
	{"skipped value nested 9 deep", wire.KindData, nested(9)},
	// §15.3, other kinds.
	{"SUBSCRIBE max_layer 16", wire.KindSubscribe, []byte{0xA3, 0x00, 0x62, 0x2F, 0x74, 0x01, 0x61, 0x61, 0x03, 0x10}},
	{"CREDIT without limit", wire.KindCredit, []byte{0xA2, 0x00, 0x62, 0x2F, 0x71, 0x01, 0x60}},
	{"CURSOR head without report_id", wire.KindCursor, []byte{0xA0}},
	{"FLOW without flow", wire.KindFlow, []byte{0xA1, 0x00, 0x62, 0x2F, 0x76}},
	// §7.2 rules the table does not spell out.
	{"header is an array, not a map", wire.KindData, []byte{0x81, 0x00}},
	{"text key", wire.KindData, []byte{0xA1, 0x61, 0x61, 0x01}},
	{"trailing byte after the map", wire.KindData, rawpeer.Cat([]byte{0xA1}, endpointT, []byte{0x00})},
	{"endpoint is not UTF-8", wire.KindData, []byte{0xA1, 0x00, 0x62, 0xC3, 0x28}},
	{"endpoint as bytes", wire.KindData, []byte{0xA1, 0x00, 0x42, 0x2F, 0x74}},
	{"endpoint over 512 bytes", wire.KindData, rawpeer.Cat([]byte{0xA1, 0x00}, rawpeer.Text(513))},
	{"content_type over 256 bytes", wire.KindData, rawpeer.Cat([]byte{0xA2}, endpointT, []byte{0x02}, rawpeer.Text(257))},
	{"traceparent over 128 bytes", wire.KindData, rawpeer.Cat([]byte{0xA2}, endpointT, []byte{0x03}, rawpeer.Text(129))},
	{"tracestate over 512 bytes", wire.KindData, rawpeer.Cat([]byte{0xA2}, endpointT, []byte{0x04}, rawpeer.Text(513))},
	{"topic over 256 bytes", wire.KindData, rawpeer.Cat([]byte{0xA2}, endpointT, []byte{0x05}, rawpeer.Text(257))},
	{"half-precision float in a skipped value", wire.KindData, []byte{0xA1, 0x18, 0x32, 0xF9, 0x00, 0x00}},
	{"unassigned simple value in a skipped value", wire.KindData, []byte{0xA1, 0x18, 0x32, 0xF0}},
	{"indefinite-length text in a skipped value", wire.KindData, []byte{0xA1, 0x18, 0x32, 0x7F, 0xFF}},
	{"skipped map declaring 2^64-1 pairs", wire.KindData, []byte{0xA1, 0x18, 0x32, 0xBB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
	{"skipped text declaring 2^32-1 bytes", wire.KindData, []byte{0xA1, 0x18, 0x32, 0x7A, 0xFF, 0xFF, 0xFF, 0xFF}},
	{"SUBSCRIBE without filter", wire.KindSubscribe, []byte{0xA1, 0x00, 0x62, 0x2F, 0x74}},
	{"SUBSCRIBE filter over 256 bytes", wire.KindSubscribe, rawpeer.Cat([]byte{0xA2}, endpointT, []byte{0x01}, rawpeer.Text(257))},
	{"CURSOR report_id as text", wire.KindCursor, []byte{0xA1, 0x00, 0x61, 0x31}},
}

// badFilters are the filters of §15.3 that break the grammar of §8.4.1.
var badFilters = []string{"px*", "*px", "p*x.eur", "px.e*ur", "#.px", "px.#.eur", "px#"}

// filterHeader is a SUBSCRIBE / UNSUBSCRIBE / CREDIT header naming filter
// at /pub (CREDIT with limit 1).
func filterHeader(kind wire.Kind, filter string) []byte {
	if kind == wire.KindCredit {
		return rawpeer.Encode(kind, &wire.Credit{Endpoint: pubPath, Filter: filter, Limit: 1})
	}
	return rawpeer.Encode(kind, &wire.Subscribe{Endpoint: pubPath, Filter: filter})
}

// badHellos are HELLO headers that are violations as the peer's first HELLO.
var badHellos = []badHeader{
	{"HELLO list declaring 2^32-1 items", wire.KindHello, []byte{0xA1, 0x00, 0x9A, 0xFF, 0xFF, 0xFF, 0xFF}},
	{"HELLO without its required keys", wire.KindHello, []byte{0xA0}},
	{"HELLO versions of 65 items", wire.KindHello, helloWithVersions(65)},
	{"HELLO requiring more than it offers", wire.KindHello, helloRequiringOrdering()},
	{"HELLO with ordering 9", wire.KindHello, helloOffering(0x04, 0x09)},
	{"HELLO with control_isolated 2", wire.KindHello, helloOffering(0x09, 0x02)},
}

// helloKeys1to4 is {1: 16384, 2: 1024, 3: [], 4: []}, the tail of a v0 HELLO.
var helloKeys1to4 = []byte{0x01, 0x19, 0x40, 0x00, 0x02, 0x19, 0x04, 0x00, 0x03, 0x80, 0x04, 0x80}

func helloWithVersions(n int) []byte {
	versions := rawpeer.Cat([]byte{0x98, byte(n)}, make([]byte, n)) // n zeros: version 0 repeated
	return rawpeer.Cat([]byte{0xA5, 0x00}, versions, helloKeys1to4)
}

// helloRequiringOrdering requires ordering 1 and offers core.
func helloRequiringOrdering() []byte {
	return rawpeer.Cat([]byte{0xA6, 0x00, 0x81, 0x00}, helloKeys1to4, []byte{0x06, 0xA1, 0x04, 0x01})
}

// helloOffering offers a guarantee set of one dimension key at value.
func helloOffering(key, value byte) []byte {
	return rawpeer.Cat([]byte{0xA6, 0x00, 0x81, 0x00}, helloKeys1to4, []byte{0x05, 0xA1, key, value})
}
