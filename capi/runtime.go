package main

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"time"

	weida "github.com/weida-go/weida/core"
)

// runtimeObj is the user's own runtime handle: one reference among those
// its children hold.
type runtimeObj struct{ ref *runtimeRef }

func (*runtimeObj) role() role { return roleRuntime }
func (o *runtimeObj) release() { o.ref.release() }

//export weida_runtime_new
func weida_runtime_new(opts *C.weida_runtime_opts_t, out *C.weida_runtime_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(out, "out"); err != nil {
		return fail(err)
	}
	*out = 0
	o, err := readSized(opts, "weida_runtime_opts_t")
	if err != nil {
		return fail(err)
	}
	cfg, err := runtimeConfig(o)
	if err != nil {
		return fail(err)
	}
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		return fail(err)
	}
	*out = C.weida_runtime_t(handles.insert(&runtimeObj{ref: newRuntimeRef(rt)}))
	return codeOK
}

// runtimeConfig maps the C options onto weida.Config. Options the library
// cannot honour yet are refused, never silently ignored.
func runtimeConfig(o C.weida_runtime_opts_t) (weida.Config, error) {
	cfg := weida.Config{Logger: abiLogger} // the log callback's (log.go)
	var err error
	if cfg.Datagrams, err = flag(o.datagrams, "weida_runtime_opts_t.datagrams"); err != nil {
		return cfg, err
	}
	if cfg.PathReports, err = flag(o.path_report, "weida_runtime_opts_t.path_report"); err != nil {
		return cfg, err
	}
	cfg.EndpointQueue = int(o.endpoint_queue)
	if o.send_timeout_ms > C.uint64_t(time.Duration(1<<62)/time.Millisecond) {
		return cfg, invalid("runtime options: send_timeout_ms is too large")
	}
	cfg.SendTimeout = time.Duration(o.send_timeout_ms) * time.Millisecond
	return cfg, runtimeGuarantees(o, &cfg)
}

//export weida_runtime_shutdown
func weida_runtime_shutdown(h C.weida_runtime_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := lookup[*runtimeObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	o.ref.shutdown()
	return codeOK
}

// prepareDrain: a canceled drain ends as weida_runtime_shutdown does, at
// once, since the runtime is consumed either way.
func prepareDrain(h C.weida_runtime_t, secs C.double) prepared {
	o, err := lookup[*runtimeObj](uint64(h))
	if err != nil {
		return refused(err)
	}
	d, err := seconds(secs, "seconds")
	if err != nil {
		return refused(err)
	}
	ref := o.ref
	return prepared{ctx: context.Background(), run: func(ctx context.Context) (uint64, uint64, error) {
		stop := context.AfterFunc(ctx, ref.shutdown)
		defer stop()
		res, err := ref.rt.Drain(time.Now().Add(d))
		ref.shutdown()
		return res.Delivered, res.Outstanding, err
	}}
}

//export weida_runtime_drain
func weida_runtime_drain(h C.weida_runtime_t, secs C.double, delivered, outstanding *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	return block2(prepareDrain(h, secs), delivered, "delivered", outstanding, "outstanding")
}

//export weida_runtime_drain_async
func weida_runtime_drain_async(h C.weida_runtime_t, secs C.double, cb C.weida_done_fn, user C.uintptr_t, op *C.weida_op_t) (rc C.int) {
	defer recoverInto(&rc)
	return start(prepareDrain(h, secs), cb, user, op)
}
