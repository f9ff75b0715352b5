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
	metaContentLen  = 16
	metaSequence    = 17
	metaLayer       = 22
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
	default:
		return "", false, fieldError(field, "text")
	}
	return value, ok, nil
}

// metaUint reads a number field; ok is false when the field is absent.
func metaUint(m weida.IncomingMeta, field int) (value uint64, ok bool, err error) {
	switch {
	case field == metaContentLen:
		value, ok = m.ContentLen()
		return value, ok, nil
	case field >= metaSequence && field <= metaLayer:
		// Named by the ABI for the surface to come; the library's
		// IncomingMeta does not carry them yet.
		return 0, false, &weida.Error{Kind: weida.KindUnsupported,
			Msg: fmt.Sprintf("meta field %d (sequence, missed, report, segment, layer) is not exposed by the library yet", field)}
	}
	return 0, false, fieldError(field, "number")
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
	if err != nil {
		return fail(err)
	}
	if ok {
		*value, *present = C.uint64_t(v), 1
	}
	return codeOK
}
