package main

/*
#include "bridge.h"
*/
import "C"

import (
	"strconv"
	"unsafe"

	weida "github.com/weida-go/weida/core"
)

// identityObj and trustObj are plain values: they keep no runtime alive.
type identityObj struct{ id *weida.Identity }

func (*identityObj) role() role { return roleIdentity }
func (*identityObj) release()   {}

type trustObj struct{ trust weida.Trust }

func (*trustObj) role() role { return roleTrust }
func (*trustObj) release()   {}

// issue stores a new value object in *out (required, zeroed first).
func issue[H word](out *H, build func() (object, error)) C.int {
	if err := required(out, "out"); err != nil {
		return fail(err)
	}
	*out = 0
	o, err := build()
	if err != nil {
		return fail(err)
	}
	*out = H(handles.insert(o))
	return codeOK
}

//export weida_identity_generate
func weida_identity_generate(out *C.weida_identity_t) (rc C.int) {
	defer recoverInto(&rc)
	return issue(out, func() (object, error) {
		id, err := weida.GenerateIdentity()
		return &identityObj{id: id}, err
	})
}

//export weida_identity_generate_for
func weida_identity_generate_for(names **C.char, count C.size_t, out *C.weida_identity_t) (rc C.int) {
	defer recoverInto(&rc)
	return issue(out, func() (object, error) {
		if names == nil && count > 0 {
			return nil, invalid("names is NULL but count is not 0")
		}
		list := make([]string, 0, min(uint64(count), 1024))
		for i, p := range unsafe.Slice(names, int(count)) {
			name, err := inText(p, "names["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			list = append(list, name)
		}
		id, err := weida.GenerateIdentityFor(list)
		return &identityObj{id: id}, err
	})
}

//export weida_identity_from_pem_file
func weida_identity_from_pem_file(path *C.char, out *C.weida_identity_t) (rc C.int) {
	defer recoverInto(&rc)
	return issue(out, func() (object, error) {
		p, err := inText(path, "path")
		if err != nil {
			return nil, err
		}
		id, err := weida.LoadIdentity(p)
		return &identityObj{id: id}, err
	})
}

//export weida_identity_fingerprint
func weida_identity_fingerprint(h C.weida_identity_t, buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := lookup[*identityObj](uint64(h))
	if err != nil {
		return fail(err)
	}
	return outText(o.id.Fingerprint().String(), buf, capacity, needed)
}

//export weida_trust_by_address
func weida_trust_by_address(out *C.weida_trust_t) (rc C.int) {
	defer recoverInto(&rc)
	return issue(out, func() (object, error) { return &trustObj{trust: weida.TrustByAddress()}, nil })
}

//export weida_trust_pin
func weida_trust_pin(fingerprint *C.char, out *C.weida_trust_t) (rc C.int) {
	defer recoverInto(&rc)
	return issue(out, func() (object, error) {
		fp, err := inText(fingerprint, "fingerprint")
		if err != nil {
			return nil, err
		}
		t, err := weida.TrustPin(fp)
		return &trustObj{trust: t}, err
	})
}

//export weida_trust_anchor_file
func weida_trust_anchor_file(path *C.char, out *C.weida_trust_t) (rc C.int) {
	defer recoverInto(&rc)
	return trustFromFile(path, out, weida.TrustAnchorFile)
}

//export weida_trust_pin_file
func weida_trust_pin_file(path *C.char, out *C.weida_trust_t) (rc C.int) {
	defer recoverInto(&rc)
	return trustFromFile(path, out, weida.TrustPinFile)
}

// trustFromFile issues the trust read reads from the file at path.
func trustFromFile(path *C.char, out *C.weida_trust_t, read func(string) (weida.Trust, error)) C.int {
	return issue(out, func() (object, error) {
		p, err := inText(path, "path")
		if err != nil {
			return nil, err
		}
		t, err := read(p)
		return &trustObj{trust: t}, err
	})
}

// endpointOptions maps weida_endpoint_opts_t onto Go endpoint options.
func endpointOptions(opts *C.weida_endpoint_opts_t) ([]weida.EndpointOption, error) {
	o, err := readSized(opts, "weida_endpoint_opts_t")
	if err != nil {
		return nil, err
	}
	if o.client_identity == 0 {
		return nil, nil
	}
	id, err := lookup[*identityObj](uint64(o.client_identity))
	if err != nil {
		return nil, err
	}
	return []weida.EndpointOption{weida.WithClientIdentity(id.id)}, nil
}
