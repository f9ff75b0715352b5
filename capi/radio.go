package main

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// radioObj is the bound side of RADIO/DISH. Nothing on a radio waits for a
// dish, so none of its calls has an _async form.
type radioObj struct {
	scope
	r *weida.Radio
}

func (*radioObj) role() role { return roleRadio }
func (r *radioObj) release() { r.closeWith(func() { _ = r.r.Close() }) }

// segmentObj is one segment being written. Closing an unfinished one
// cancels it (every copy reset CANCELED), like closing an unfinished
// outgoing stream: a dish neither waits for the rest nor takes a
// half-written unit for a whole one.
type segmentObj struct {
	scope
	s *weida.Segment
}

func (*segmentObj) role() role { return roleSegment }
func (s *segmentObj) release() { s.closeWith(s.s.Cancel) }

//export weida_binding_radio
func weida_binding_radio(h C.weida_binding_t, path *C.char, out *C.weida_radio_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		r, err := b.Radio(p)
		return &radioObj{scope: s, r: r}, err
	})
}

//export weida_radio_segment
func weida_radio_segment(h C.weida_radio_t, topic *C.char, opts *C.weida_segment_opts_t, out *C.weida_segment_t) (rc C.int) {
	defer recoverInto(&rc)
	var radio *radioObj
	return register(out, parentOf(uint64(h), &radio), func(s scope) (object, error) {
		t, err := inText(topic, "topic")
		if err != nil {
			return nil, err
		}
		so, err := segmentOptions(opts)
		if err != nil {
			return nil, err
		}
		seg, err := radio.r.Segment(t, so)
		return &segmentObj{scope: s, s: seg}, err
	})
}

//export weida_radio_datagram
func weida_radio_datagram(h C.weida_radio_t, topic *C.char, data unsafe.Pointer, n C.size_t, reached *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	// Datagram copies the payload into each packet before it returns.
	return answer(uint64(h), reached, "reached", func(r *radioObj) (uint64, error) {
		return sendOnTopic(topic, data, n, r.r.Datagram)
	})
}

//export weida_radio_dish_count
func weida_radio_dish_count(h C.weida_radio_t, count *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(r *radioObj) uint64 { return uint64(r.r.DishCount()) })
}

//export weida_radio_dropped
func weida_radio_dropped(h C.weida_radio_t, count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), count, func(r *radioObj) uint64 { return r.r.Dropped() })
}

//export weida_radio_dish_drops
func weida_radio_dish_drops(h C.weida_radio_t, drops *C.weida_dish_drops_t, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	r, err := lookup[*radioObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	return outDishDrops(r.r.DishDrops(), drops, capacity, n)
}

//export weida_radio_path
func weida_radio_path(h C.weida_radio_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(r *radioObj) string { return r.r.Path() })
}

// segmentWrite writes one chunk to a layer and reports the copies that
// took it. WriteLayer copies the chunk, so it is lent for the call.
func segmentWrite(h C.weida_segment_t, layer int, data unsafe.Pointer, n C.size_t, reached *C.size_t) C.int {
	return answer(uint64(h), reached, "reached", func(s *segmentObj) (uint64, error) {
		chunk, err := lendBytes(data, n, "data")
		if err != nil {
			return 0, err
		}
		return counted(s.s.WriteLayer(layer, chunk))
	})
}

//export weida_segment_write
func weida_segment_write(h C.weida_segment_t, data unsafe.Pointer, n C.size_t, reached *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return segmentWrite(h, 0, data, n, reached)
}

//export weida_segment_write_layer
func weida_segment_write_layer(h C.weida_segment_t, layer C.uint32_t, data unsafe.Pointer, n C.size_t, reached *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return segmentWrite(h, int(layer), data, n, reached)
}

//export weida_segment_finish_layer
func weida_segment_finish_layer(h C.weida_segment_t, layer C.uint32_t) (rc C.int) {
	defer recoverInto(&rc)
	s, err := lookup[*segmentObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	if err := s.s.FinishLayer(int(layer)); err != nil {
		return fail(err)
	}
	return codeOK
}

//export weida_segment_finish
func weida_segment_finish(h C.weida_segment_t, alive *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return answer(uint64(h), alive, "alive", func(s *segmentObj) (uint64, error) { return counted(s.s.Finish()) })
}

//export weida_segment_number
func weida_segment_number(h C.weida_segment_t, number *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return getCount(uint64(h), number, func(s *segmentObj) uint64 { return s.s.Number() })
}
