package main

/*
#include "bridge.h"
*/
import "C"

import (
	weida "github.com/weida-go/weida/core"
)

// bindingObj is one QUIC socket serving the runtime's paths.
type bindingObj struct {
	scope
	b *weida.Binding
}

func (*bindingObj) role() role { return roleBinding }
func (b *bindingObj) release() { b.closeWith(b.b.Close) }

// The values of enum weida_client_auth.
const (
	clientAnonymousOK = 0
	clientAnyKey      = 1
	clientTrusted     = 2
)

func bindOptions(opts *C.weida_bind_opts_t) ([]weida.BindOption, error) {
	o, err := readSized(opts, "weida_bind_opts_t")
	if err != nil {
		return nil, err
	}
	switch o.client_auth {
	case clientAnonymousOK:
		return nil, nil
	case clientAnyKey:
		return []weida.BindOption{weida.RequireAnyClientKey()}, nil
	case clientTrusted:
		t, err := lookup[*trustObj](uint64(o.client_trust))
		if err != nil {
			return nil, err
		}
		return []weida.BindOption{weida.RequireClient(t.trust)}, nil
	}
	return nil, invalid("weida_bind_opts_t.client_auth must be one of enum weida_client_auth")
}

// runtimeOf resolves the runtime a factory call is on.
func runtimeOf(h C.weida_runtime_t) func() (*runtimeRef, error) {
	return func() (*runtimeRef, error) {
		o, err := lookup[*runtimeObj](uint64(h))
		if err != nil {
			return nil, err
		}
		return o.ref, nil
	}
}

//export weida_bind_quic
func weida_bind_quic(rt C.weida_runtime_t, addr *C.char, id C.weida_identity_t, opts *C.weida_bind_opts_t, out *C.weida_binding_t) (rc C.int) {
	defer recoverInto(&rc)
	return register(out, runtimeOf(rt), func(s scope) (object, error) {
		a, err := inText(addr, "addr")
		if err != nil {
			return nil, err
		}
		ident, err := lookup[*identityObj](uint64(id))
		if err != nil {
			return nil, err
		}
		bo, err := bindOptions(opts)
		if err != nil {
			return nil, err
		}
		b, err := s.owner.rt.Listener().BindQUIC(a, ident.id, bo...)
		return &bindingObj{scope: s, b: b}, err
	})
}

//export weida_binding_local_addr
func weida_binding_local_addr(h C.weida_binding_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(b *bindingObj) string { return b.b.LocalAddr() })
}

//export weida_binding_fingerprint
func weida_binding_fingerprint(h C.weida_binding_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	return getText(uint64(h), buf, capacity, needed, func(b *bindingObj) string { return bindingFingerprint(b.b) })
}

//export weida_binding_url
func weida_binding_url(h C.weida_binding_t, path *C.char, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	p, err := inText(path, "path")
	if err != nil {
		return fail(err)
	}
	return getText(uint64(h), buf, capacity, needed, func(b *bindingObj) string { return b.b.URL(p) })
}

// registerAt registers an endpoint at a path of a binding's runtime.
func registerAt[H word](out *H, h C.weida_binding_t, path *C.char, build func(s scope, b *weida.Binding, path string) (object, error)) C.int {
	var b *bindingObj
	return register(out, parentOf(uint64(h), &b), func(s scope) (object, error) {
		p, err := inText(path, "path")
		if err != nil {
			return nil, err
		}
		return build(s, b.b, p)
	})
}

//export weida_binding_replier
func weida_binding_replier(h C.weida_binding_t, path *C.char, out *C.weida_replier_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		r, err := b.Replier(p)
		return &replierObj{scope: s, r: r}, err
	})
}

//export weida_binding_puller
func weida_binding_puller(h C.weida_binding_t, path *C.char, out *C.weida_puller_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		pl, err := b.Puller(p)
		return &pullerObj{scope: s, p: pl}, err
	})
}

//export weida_binding_publisher
func weida_binding_publisher(h C.weida_binding_t, path *C.char, out *C.weida_publisher_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		pub, err := b.Publisher(p)
		return &publisherObj{scope: s, p: pub}, err
	})
}

//export weida_binding_pair
func weida_binding_pair(h C.weida_binding_t, path *C.char, out *C.weida_paired_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		pr, err := b.Pair(p)
		return &pairedObj{scope: s, p: pr}, err
	})
}

//export weida_binding_respondent
func weida_binding_respondent(h C.weida_binding_t, path *C.char, out *C.weida_respondent_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		r, err := b.Respondent(p)
		return &respondentObj{scope: s, r: r}, err
	})
}

//export weida_binding_bus
func weida_binding_bus(h C.weida_binding_t, path *C.char, trust C.weida_trust_t, opts *C.weida_endpoint_opts_t, out *C.weida_bus_t) (rc C.int) {
	defer recoverInto(&rc)
	return registerAt(out, h, path, func(s scope, b *weida.Binding, p string) (object, error) {
		t, err := lookup[*trustObj](uint64(trust))
		if err != nil {
			return nil, err
		}
		eo, err := endpointOptions(opts)
		if err != nil {
			return nil, err
		}
		m, err := b.Bus(p, t.trust, eo...)
		return &busObj{scope: s, m: m}, err
	})
}
