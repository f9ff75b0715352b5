package main

/*
#include "bridge.h"
*/
import "C"

import (
	"strconv"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// Guarantee sets cross the ABI as weida_guarantees_t, a size-led struct
// whose zero is core, pointed to from weida_runtime_opts_t (required and
// offered). This file only maps fields: whether a set is well formed and
// whether this build honours it is the core's to decide (Config.Guarantees
// and Config.Offer, checked by weida.NewRuntime), so the sentence a C
// caller reads names the dimension exactly as a Go caller's does.

// The C acknowledgement field uses enum weida_level (1 TransportReceipt ..
// 5 Processed), with 0 meaning the core level. None (below core) has no C
// value: a configured set may never ask for it.
var cAcknowledgements = map[C.int32_t]guarantee.Acknowledgement{
	0:                         guarantee.TransportReceipt,
	C.WEIDA_TRANSPORT_RECEIPT: guarantee.TransportReceipt,
	C.WEIDA_ACCEPTED:          guarantee.Accepted,
	C.WEIDA_STORED:            guarantee.Stored,
	C.WEIDA_REPLICATED:        guarantee.Replicated,
	C.WEIDA_PROCESSED:         guarantee.Processed,
}

// readGuarantees maps *src (NULL: core) onto a guarantee.Set. what names
// the field for messages, e.g. "weida_runtime_opts_t.required".
func readGuarantees(src *C.weida_guarantees_t, what string) (guarantee.Set, error) {
	var set guarantee.Set
	g, err := readSized(src, "weida_guarantees_t")
	if err != nil {
		return set, err
	}
	ack, ok := cAcknowledgements[g.acknowledgement]
	if !ok {
		return set, badLevel(what, "acknowledgement", g.acknowledgement)
	}
	set.Acknowledgement = ack
	levels := []struct {
		name string
		v    C.int32_t
		dst  *uint8
	}{
		{"delivery", g.delivery, (*uint8)(&set.Delivery)},
		{"durability", g.durability, (*uint8)(&set.Durability)},
		{"ordering", g.ordering, (*uint8)(&set.Ordering)},
		{"deduplication", g.deduplication, (*uint8)(&set.Deduplication)},
		{"backpressure", g.backpressure, (*uint8)(&set.Backpressure)},
		{"producer_naming", g.producer_naming, (*uint8)(&set.ProducerNaming)},
	}
	// Past uint8 no dimension has a level; within it, the core's Validate
	// refuses an unknown value naming the dimension.
	for _, l := range levels {
		if l.v < 0 || l.v > 255 {
			return set, badLevel(what, l.name, l.v)
		}
		*l.dst = uint8(l.v)
	}
	set.Replicas = int(g.replicas)
	if set.DedupWindow, err = millis(g.dedup_window_ms, what+".dedup_window_ms"); err != nil {
		return set, err
	}
	if set.ControlIsolated, err = flag(g.control_isolated, what+".control_isolated"); err != nil {
		return set, err
	}
	return set, nil
}

func badLevel(what, dimension string, v C.int32_t) error {
	return invalid(what + "." + dimension + ": " + strconv.Itoa(int(v)) + " is not a level of that dimension")
}

// guaranteesValue is s in the C struct's terms (the inverse of readGuarantees).
func guaranteesValue(s guarantee.Set) C.weida_guarantees_t {
	g := C.weida_guarantees_t{
		delivery:        C.int32_t(s.Delivery),
		durability:      C.int32_t(s.Durability),
		replicas:        C.uint32_t(s.Replicas),
		ordering:        C.int32_t(s.Ordering),
		deduplication:   C.int32_t(s.Deduplication),
		dedup_window_ms: C.uint64_t(s.DedupWindow.Milliseconds()),
		backpressure:    C.int32_t(s.Backpressure),
		producer_naming: C.int32_t(s.ProducerNaming),
	}
	for c, a := range cAcknowledgements {
		if a == s.Acknowledgement && c != 0 {
			g.acknowledgement = c
		}
	}
	if s.ControlIsolated {
		g.control_isolated = 1
	}
	return g
}

// runtimeGuarantees sets cfg's required and offered sets from the options.
func runtimeGuarantees(o C.weida_runtime_opts_t, cfg *weida.Config) error {
	var err error
	if cfg.Guarantees, err = readGuarantees(o.required, "weida_runtime_opts_t.required"); err != nil {
		return err
	}
	if o.offered == nil {
		return nil
	}
	if cfg.Offer, err = readGuarantees(o.offered, "weida_runtime_opts_t.offered"); err != nil {
		return err
	}
	// The core reads a zero Offer as "offer what is required"; a C caller
	// who points at a core set means core, which may fall short.
	if ok, why := cfg.Offer.AtLeast(cfg.Guarantees); !ok {
		return &weida.Error{Kind: weida.KindRuntime,
			Msg: "runtime options: offered must reach required in every dimension, but its " + why}
	}
	return nil
}

//export weida_runtime_suppressed_duplicates
func weida_runtime_suppressed_duplicates(h C.weida_runtime_t, count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(count, "count"); err != nil {
		return fail(err)
	}
	o, err := lookup[*runtimeObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	*count = C.uint64_t(o.ref.rt.SuppressedDuplicates())
	return codeOK
}

//export weida_runtime_offered
func weida_runtime_offered(h C.weida_runtime_t, out *C.weida_guarantees_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := lookup[*runtimeObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if err := writeSized(out, guaranteesValue(o.ref.rt.Offered()), "out"); err != nil {
		return fail(err)
	}
	return codeOK
}
