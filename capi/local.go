package main

/*
#include "bridge.h"
*/
import "C"

import (
	weida "github.com/weida-go/weida/core"
)

// Local transports (SURFACE.md §1.5, §3.7): a binding on the in-process bus
// or on a unix socket. Such a binding proves no key, so its fingerprint
// reads as "" rather than the zero fingerprint's text, and its peers are
// proved by the kernel (WEIDA_META_LOCAL_PEER), not by a certificate.

//export weida_bind_inproc
func weida_bind_inproc(rt C.weida_runtime_t, bus *C.char, out *C.weida_binding_t) (rc C.int) {
	defer recoverInto(&rc)
	return register(out, runtimeOf(rt), func(s scope) (object, error) {
		name, err := inText(bus, "bus")
		if err != nil {
			return nil, err
		}
		b, err := s.owner.rt.Listener().BindInproc(name)
		return &bindingObj{scope: s, b: b}, err
	})
}

// weida_bind_unix is an extension of SURFACE.md §3.7, which names only
// weida_bind_inproc: the Go API serves unix sockets, and a C or Python
// server on one is useful (§2.7 lists it as free to add).
//
//export weida_bind_unix
func weida_bind_unix(rt C.weida_runtime_t, path *C.char, out *C.weida_binding_t) (rc C.int) {
	defer recoverInto(&rc)
	return register(out, runtimeOf(rt), func(s scope) (object, error) {
		p, err := inText(path, "path")
		if err != nil {
			return nil, err
		}
		b, err := s.owner.rt.Listener().BindUnix(p)
		return &bindingObj{scope: s, b: b}, err
	})
}

// bindingFingerprint is the text weida_binding_fingerprint returns: "" for
// a local binding, whose zero fingerprint would otherwise print as a key
// of all zeros that no peer could ever prove.
func bindingFingerprint(b *weida.Binding) string {
	if !b.HasFingerprint() {
		return ""
	}
	return b.Fingerprint().String()
}

// localPeerText is WEIDA_META_LOCAL_PEER: "uid=… gid=… pid=…" of a unix
// socket peer, absent over QUIC and in process.
func localPeerText(m weida.IncomingMeta) (string, bool) {
	p, ok := m.LocalPeer()
	if !ok {
		return "", false
	}
	return p.String(), true
}
