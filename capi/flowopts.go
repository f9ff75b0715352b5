package main

/*
#include "bridge.h"
*/
import "C"

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// The size-led structs of RADIO/DISH: a segment's terms, a join's terms,
// and one dish's losses. They follow sizedstruct.go's rules; this file
// only maps their fields.

// The values of enum weida_dish_kind, which mirror weida.DishMessageKind.
const (
	dishKindSegment  = int(weida.DishSegment)
	dishKindDatagram = int(weida.DishDatagram)
)

// millis converts a millisecond count to a duration, refusing one that
// would overflow it.
func millis(ms C.uint64_t, what string) (time.Duration, error) {
	if ms > C.uint64_t(math.MaxInt64/int64(time.Millisecond)) {
		return 0, invalid(what + " is too large")
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// flag reads an int32 flag field: 0 or 1, nothing else.
func flag(v C.int32_t, what string) (bool, error) {
	switch v {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, invalid(what + " must be 0 or 1, got " + strconv.Itoa(int(v)))
}

// segmentOptions maps weida_segment_opts_t onto weida.SegmentOptions.
func segmentOptions(opts *C.weida_segment_opts_t) (weida.SegmentOptions, error) {
	var so weida.SegmentOptions
	o, err := readSized(opts, "weida_segment_opts_t")
	if err != nil {
		return so, err
	}
	if so.MaxAge, err = millis(o.max_age_ms, "weida_segment_opts_t.max_age_ms"); err != nil {
		return so, err
	}
	if o.priority < math.MinInt16 || o.priority > math.MaxInt16 {
		return so, invalid("weida_segment_opts_t.priority must be within -32768..32767, got " + strconv.Itoa(int(o.priority)))
	}
	so.Priority = int16(o.priority)
	so.FollowsUpstream, err = flag(o.follows_upstream, "weida_segment_opts_t.follows_upstream")
	return so, err
}

// joinOptions maps weida_join_opts_t onto weida.JoinOptions. The layer
// cap's range (0..15) is the library's to judge (LimitExceeded).
func joinOptions(opts *C.weida_join_opts_t) (weida.JoinOptions, error) {
	var jo weida.JoinOptions
	o, err := readSized(opts, "weida_join_opts_t")
	if err != nil {
		return jo, err
	}
	if jo.MaxAge, err = millis(o.max_age_ms, "weida_join_opts_t.max_age_ms"); err != nil {
		return jo, err
	}
	if jo.CapLayers, err = flag(o.cap_layers, "weida_join_opts_t.cap_layers"); err != nil {
		return jo, err
	}
	if !jo.CapLayers && o.max_layer != 0 {
		// A cap that would be ignored is a caller's mistake, not a default.
		return jo, invalid("weida_join_opts_t.max_layer is set but cap_layers is 0")
	}
	jo.MaxLayer = int(o.max_layer)
	return jo, nil
}

// dishDropsValue is one weida.DishDrops as its C struct.
func dishDropsValue(d weida.DishDrops) C.weida_dish_drops_t {
	v := C.weida_dish_drops_t{
		subscriber_budget: C.uint64_t(d.SubscriberBudget), subscriber_queue: C.uint64_t(d.SubscriberQueue),
		superseded: C.uint64_t(d.Superseded), expired: C.uint64_t(d.Expired), too_large: C.uint64_t(d.TooLarge),
		no_datagrams: C.uint64_t(d.NoDatagrams), layers_cut: C.uint64_t(d.LayersCut),
		no_parked: C.uint64_t(d.NoParked),
	}
	if d.HasPeer {
		fixedText(v.peer[:], d.Peer.String())
	}
	fixedText(v.addr[:], d.Addr)
	return v
}

// fixedText writes s into a fixed char array, cut to fit its NUL.
func fixedText(dst []C.char, s string) {
	n := min(len(s), len(dst)-1)
	for i := 0; i < n; i++ {
		dst[i] = C.char(s[i])
	}
	dst[n] = 0
}

// outDishDrops writes drops into the caller's array of cap structs, laid
// out at the stride drops[0].size declares (the caller's sizeof), so an
// older or newer header still indexes its own array correctly. *n is the
// number of dishes; fewer slots than that is WEIDA_ETRUNCATED.
func outDishDrops(all []weida.DishDrops, drops *C.weida_dish_drops_t, capacity C.size_t, n *C.size_t) C.int {
	if err := required(n, "n"); err != nil {
		return fail(err)
	}
	*n = 0
	if capacity > 0 {
		if drops == nil {
			return fail(invalid("drops is NULL but the capacity is not 0"))
		}
		stride := uintptr(drops.size)
		if stride < unsafe.Sizeof(C.size_t(0)) {
			return fail(invalid("drops[0].size must be set to sizeof(weida_dish_drops_t), got " + strconv.FormatUint(uint64(stride), 10)))
		}
		fits := int(min(uint64(capacity), uint64(len(all))))
		for i := 0; i < fits; i++ {
			slot := (*C.weida_dish_drops_t)(unsafe.Add(unsafe.Pointer(drops), uintptr(i)*stride))
			slot.size = C.size_t(stride)
			if err := writeSized(slot, dishDropsValue(all[i]), "drops"); err != nil {
				return fail(err)
			}
		}
	}
	*n = C.size_t(len(all))
	if uint64(len(all)) > uint64(capacity) {
		return fail(abiErr(codeTruncated, "the array needs room for "+strconv.Itoa(len(all))+" dishes"))
	}
	return codeOK
}
