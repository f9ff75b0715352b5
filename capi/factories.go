package main

/*
#include "bridge.h"
*/
import "C"

import (
	weida "github.com/weida-go/weida/core"
)

// dialling makes a dialling endpoint of a runtime under trust and options.
func dialling[H word](out *H, rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t,
	build func(s scope, t weida.Trust, eo []weida.EndpointOption) object) C.int {
	return register(out, runtimeOf(rt), func(s scope) (object, error) {
		t, err := lookup[*trustObj](uint64(trust))
		if err != nil {
			return nil, err
		}
		eo, err := endpointOptions(opts)
		if err != nil {
			return nil, err
		}
		return build(s, t.trust, eo), nil
	})
}

//export weida_runtime_requester
func weida_runtime_requester(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_requester_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &requesterObj{scope: s, r: s.owner.rt.Requester(t, eo...)}
	})
}

//export weida_runtime_pusher
func weida_runtime_pusher(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_pusher_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &pusherObj{scope: s, p: s.owner.rt.Pusher(t, eo...)}
	})
}

//export weida_runtime_subscriber
func weida_runtime_subscriber(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_subscriber_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &subscriberObj{scope: s, s: s.owner.rt.Subscriber(t, eo...)}
	})
}

//export weida_runtime_pair
func weida_runtime_pair(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_paired_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &pairedObj{scope: s, p: s.owner.rt.Pair(t, eo...)}
	})
}

//export weida_runtime_surveyor
func weida_runtime_surveyor(rt C.weida_runtime_t, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_surveyor_t) (rc C.int) {
	defer recoverInto(&rc)
	return dialling(out, rt, trust, opts, func(s scope, t weida.Trust, eo []weida.EndpointOption) object {
		return &surveyorObj{scope: s, s: s.owner.rt.Surveyor(t, eo...)}
	})
}
