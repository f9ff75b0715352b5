package main

/*
#include "bridge.h"
*/
import "C"

import (
	weida "github.com/weida-go/weida/core"
)

// A dish receives two kinds of message, and both become msg handles so one
// set of getters reads them. A segment arrives on a stream whose DATA
// header carries its topic, number and layer, so its meta answers those
// fields. A datagram segment has no header: its topic came with its flow
// and its number with the packet, so its msg keeps them here and the meta
// getters answer from them (weida_meta_text / weida_meta_uint consult
// datagramOf).

// datagramFields are what a datagram segment carries outside any header.
type datagramFields struct {
	topic   string
	segment uint64
}

// newDishMsg stores what a dish received as a msg handle.
func newDishMsg(m weida.DishMessage) uint64 {
	o := &msgObj{body: newCBlock(m.Payload), meta: m.Meta}
	if m.Kind == weida.DishDatagram {
		o.datagram = &datagramFields{topic: m.Topic, segment: m.Segment}
	}
	return handles.insert(o)
}

// datagramOf returns h's datagram fields, or nil when h is not a dish's
// datagram segment (or not a msg at all: lookupMeta judged it already).
func datagramOf(h C.weida_handle_t) *datagramFields {
	m, err := lookup[*msgObj](uint64(h))
	if err != nil {
		return nil
	}
	return m.datagram
}

// text answers a text field: the topic; every other field is absent, as
// on a message with an empty header (which also keeps the field checks).
func (d *datagramFields) text(field int) (string, bool, error) {
	if field == metaTopic {
		return d.topic, true, nil
	}
	return metaText(weida.IncomingMeta{}, field)
}

// number answers a number field: the segment number, and layer 0 (a
// datagram segment is one packet, so it has only the base layer).
func (d *datagramFields) number(field int) (uint64, bool, error) {
	switch field {
	case metaSegment:
		return d.segment, true, nil
	case metaLayer:
		return 0, true, nil
	}
	return metaUint(weida.IncomingMeta{}, field)
}
