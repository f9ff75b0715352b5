package main

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"

	weida "github.com/weida-go/weida/core"
)

// metaSource is a handle that carries an IncomingMeta: msg, request, istream.
type metaSource interface {
	object
	incomingMeta() weida.IncomingMeta
}

func lookupMeta(h C.weida_handle_t) (weida.IncomingMeta, error) {
	o, err := handles.get(uint64(h))
	if err != nil {
		return weida.IncomingMeta{}, err
	}
	s, ok := o.(metaSource)
	if !ok {
		return weida.IncomingMeta{}, abiErr(codeBadHandle,
			fmt.Sprintf("handle %#x is a %s handle, which has no meta (msg, request and istream do)", uint64(h), o.role()))
	}
	return s.incomingMeta(), nil
}

// The field numbers of enum weida_meta_field.
const (
	metaEndpoint    = 1
	metaContentType = 2
	metaTopic       = 3
	metaPeer        = 4
	metaTraceparent = 5
	metaTracestate  = 6
	metaLocalPeer   = 7
	metaContentLen  = 16
	metaSequence    = 17
	metaMissed      = 18
	metaReportMode  = 19
	metaReportID    = 20
	metaSegment     = 21
	metaLayer       = 22
	metaAttempt     = 23
	metaAchieved    = 24
)

// metaText reads a text field; ok is false when the field is absent.
func metaText(m weida.IncomingMeta, field int) (value string, ok bool, err error) {
	switch field {
	case metaEndpoint:
		value, ok = m.Endpoint()
	case metaContentType:
		value, ok = m.ContentType()
	case metaTopic:
		value, ok = m.Topic()
	case metaTraceparent:
		value, ok = m.Traceparent()
	case metaTracestate:
		value, ok = m.Tracestate()
	case metaPeer:
		fp, has := m.Peer()
		if has {
			value, ok = fp.String(), true
		}
	case metaLocalPeer:
		value, ok = localPeerText(m)
	default:
		return "", false, fieldError(field, "text")
	}
	return value, ok, nil
}

// metaUint reads a number field; ok is false when the field is absent,
// and value is then the field's default (0, or 1 for the delivery attempt).
func metaUint(m weida.IncomingMeta, field int) (value uint64, ok bool, err error) {
	switch field {
	case metaContentLen:
		value, ok = m.ContentLen()
	case metaSequence:
		value, ok = m.Sequence()
	case metaMissed:
		value, ok = m.Missed()
	case metaReportMode:
		var order weida.ReportOrder
		order, ok = m.Report()
		value = uint64(order.Mode)
	case metaReportID:
		value, ok = m.ReportID()
	case metaAttempt:
		value, ok = m.DeliveryAttempt() // 1 when absent: the protocol's default
	case metaAchieved:
		value, ok = m.Achieved()
	case metaSegment:
		value, ok = m.Segment()
	case metaLayer:
		var layer int
		layer, ok = m.Layer()
		value = uint64(layer)
	default:
		return 0, false, fieldError(field, "number")
	}
	return value, ok, nil
}

func fieldError(field int, asked string) error {
	return invalid(fmt.Sprintf("meta field %d is not a %s field of enum weida_meta_field", field, asked))
}

//export weida_meta_text
func weida_meta_text(h C.weida_handle_t, field C.int, buf *C.char, capacity C.size_t, needed *C.size_t, present *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(present, "present"); err != nil {
		return fail(err)
	}
	*present = 0
	m, err := lookupMeta(h)
	if err != nil {
		return fail(err)
	}
	value, ok, err := metaText(m, int(field))
	if d := datagramOf(h); d != nil { // no header: see dishmsg.go
		value, ok, err = d.text(int(field))
	}
	if err != nil {
		return fail(err)
	}
	if ok {
		*present = 1
	}
	return outText(value, buf, capacity, needed)
}

//export weida_meta_uint
func weida_meta_uint(h C.weida_handle_t, field C.int, value *C.uint64_t, present *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(value, "value"); err != nil {
		return fail(err)
	}
	if err := required(present, "present"); err != nil {
		return fail(err)
	}
	*value, *present = 0, 0
	m, err := lookupMeta(h)
	if err != nil {
		return fail(err)
	}
	v, ok, err := metaUint(m, int(field))
	if d := datagramOf(h); d != nil { // no header: see dishmsg.go
		v, ok, err = d.number(int(field))
	}
	if err != nil {
		return fail(err)
	}
	*value = C.uint64_t(v) // an absent field's default, too
	if ok {
		*present = 1
	}
	return codeOK
}

//export weida_meta_report_levels
func weida_meta_report_levels(h C.weida_handle_t, levels *C.uint64_t, capacity C.size_t, n *C.size_t, present *C.int) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(present, "present"); err != nil {
		return fail(err)
	}
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*present, *n = 0, 0
	m, err := lookupMeta(h)
	if err != nil {
		return fail(err)
	}
	order, ok := m.Report()
	if ok {
		*present = 1
	}
	return outWords(n, capacity, wordsOut{"levels", levels, order.Levels})
}
