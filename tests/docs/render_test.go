package docs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/weida-go/weida/core/wire"
)

// decodeKind decodes hdr as a header of kind k, as the transport would.
func decodeKind(k wire.Kind, hdr []byte) (wire.HeaderAppender, error) {
	switch k {
	case wire.KindHello:
		h, err := wire.DecodeHello(hdr)
		return &h, err
	case wire.KindData:
		d, err := wire.DecodeData(hdr)
		return &d, err
	case wire.KindError:
		e, err := wire.DecodeError(hdr)
		return &e, err
	case wire.KindSubscribe, wire.KindUnsubscribe:
		s, err := wire.DecodeSubscribe(hdr)
		return &s, err
	case wire.KindCredit:
		c, err := wire.DecodeCredit(hdr)
		return &c, err
	case wire.KindCursor:
		c, err := wire.DecodeCursorHead(hdr)
		return &c, err
	case wire.KindFlow:
		f, err := wire.DecodeFlow(hdr)
		return &f, err
	}
	return nil, fmt.Errorf("no decoder for kind %v", k)
}

// kindNamed is the kind docs/PROTOCOL.md writes as name ("DATA").
func kindNamed(name string) (wire.Kind, bool) {
	for k := wire.Kind(0); k.Valid(); k++ {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}

// fields renders a decoded header the way the "Fields" column of
// docs/PROTOCOL.md §15 writes it: the present keys in key order, as
// key:name=value, inside braces.
type fields []string

func (f *fields) add(key int, name string, v any) {
	var s string
	switch v := v.(type) {
	case string:
		s = strconv.Quote(v)
	case []uint64:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatUint(x, 10)
		}
		s = "[" + strings.Join(parts, " ") + "]"
	case [32]byte:
		s = fmt.Sprintf("h'%x'", v[:])
	default:
		s = fmt.Sprint(v)
	}
	*f = append(*f, fmt.Sprintf("%d:%s=%s", key, name, s))
}

func (f fields) String() string { return "{" + strings.Join(f, " ") + "}" }

func optStr(f *fields, key int, name string, o wire.Opt[string]) {
	if o.Ok {
		f.add(key, name, o.V)
	}
}

func optUint(f *fields, key int, name string, o wire.Opt[uint64]) {
	if o.Ok {
		f.add(key, name, o.V)
	}
}

func render(h wire.HeaderAppender) string {
	var f fields
	switch h := h.(type) {
	case *wire.Hello:
		f.add(0, "versions", h.Versions)
		f.add(1, "max_header_bytes", h.MaxHeaderBytes)
		f.add(2, "max_transfers", h.MaxTransfers)
		f.add(3, "capabilities", h.Capabilities)
		f.add(4, "required_capabilities", h.RequiredCapabilities)
		if h.Offered != wire.CoreGuarantees() {
			f = append(f, "5:guarantees_offered="+renderSet(h.Offered))
		}
		if h.Required != wire.CoreGuarantees() {
			f = append(f, "6:guarantees_required="+renderSet(h.Required))
		}
	case *wire.Data:
		optStr(&f, 0, "endpoint", h.Endpoint)
		optUint(&f, 1, "content_len", h.ContentLen)
		optStr(&f, 2, "content_type", h.ContentType)
		optStr(&f, 3, "traceparent", h.Traceparent)
		optStr(&f, 4, "tracestate", h.Tracestate)
		optStr(&f, 5, "topic", h.Topic)
		optUint(&f, 6, "sequence", h.Sequence)
		if h.Producer.Ok {
			f.add(7, "producer", h.Producer.V)
		}
		optUint(&f, 8, "achieved", h.Achieved)
		optUint(&f, 9, "report_id", h.ReportID)
		if h.Report != nil {
			f.add(10, "report", h.Report)
		}
		if h.ReportMode != 0 {
			f.add(11, "report_mode", h.ReportMode)
		}
		optUint(&f, 12, "delivery_attempt", h.DeliveryAttempt)
		optUint(&f, 13, "segment", h.Segment)
		if h.Layer != 0 {
			f.add(14, "layer", h.Layer)
		}
	case *wire.ErrorFrame:
		f.add(0, "code", h.Code)
		optStr(&f, 1, "leader", h.Leader)
		optUint(&f, 2, "term", h.Term)
	case *wire.Subscribe:
		f.add(0, "endpoint", h.Endpoint)
		f.add(1, "filter", h.Filter)
		optUint(&f, 2, "max_age_ms", h.MaxAgeMs)
		optUint(&f, 3, "max_layer", h.MaxLayer)
	case *wire.Credit:
		f.add(0, "endpoint", h.Endpoint)
		f.add(1, "filter", h.Filter)
		f.add(2, "limit", h.Limit)
	case *wire.CursorHead:
		f.add(0, "report_id", h.ReportID)
	case *wire.Flow:
		f.add(0, "endpoint", h.Endpoint)
		f.add(1, "flow", h.Flow)
		optStr(&f, 2, "content_type", h.ContentType)
		optStr(&f, 3, "traceparent", h.Traceparent)
		optStr(&f, 4, "tracestate", h.Tracestate)
		optStr(&f, 5, "topic", h.Topic)
	default:
		return fmt.Sprintf("%T", h)
	}
	return f.String()
}

// renderSet writes the dimensions of g that are not at their core level.
func renderSet(g wire.GuaranteeSet) string {
	var f fields
	core := wire.CoreGuarantees()
	level := func(key int, name string, got, core uint64) {
		if got != core {
			f.add(key, name, got)
		}
	}
	level(0, "delivery", g.Delivery, core.Delivery)
	level(1, "acknowledgement", g.Acknowledgement, core.Acknowledgement)
	optUint(&f, 2, "durability", g.Durability)
	optUint(&f, 3, "replicas", g.Replicas)
	level(4, "ordering", g.Ordering, core.Ordering)
	level(5, "deduplication", g.Deduplication, core.Deduplication)
	optUint(&f, 6, "dedup_window_ms", g.DedupWindowMs)
	level(7, "backpressure", g.Backpressure, core.Backpressure)
	level(8, "producer_naming", g.ProducerNaming, core.ProducerNaming)
	level(9, "control_isolated", g.ControlIsolated, core.ControlIsolated)
	return f.String()
}
