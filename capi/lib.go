package main

/*
#include "bridge.h"
*/
import "C"

import (
	"sync"

	"github.com/weida-go/weida/core/wire"
)

// version is the library version; a release build sets it with
// -ldflags "-X main.version=1.2.3" (build/lib.sh does).
var version = "0.1.0-dev"

// abiVersion is WEIDA_ABI_VERSION of the header this library implements.
const abiVersion = 1

// main is required by -buildmode=c-shared and c-archive; it never runs.
func main() {}

// staticTexts are C strings made once and never freed: what
// weida_version, weida_alpn and weida_strerror return.
var staticTexts = sync.OnceValue(func() map[string]*C.char {
	m := map[string]*C.char{"version": intern(version), "alpn": intern(wire.ALPN),
		"unknown": intern("WEIDA_E?: not a weida code")}
	for code := codeOK; code <= lastABIOnly; code++ {
		if info, ok := describe(code); ok {
			m[info.name] = intern(info.name + ": " + info.text)
		}
	}
	return m
})

func intern(s string) *C.char {
	return C.weida_bridge_intern(textPtr(s), C.size_t(len(s)))
}

//export weida_version
func weida_version() (p *C.char) {
	defer recoverText(&p)
	return staticTexts()["version"]
}

//export weida_abi_version
func weida_abi_version() (v C.uint32_t) {
	defer recoverNumber(&v)
	return abiVersion
}

//export weida_wire_version
func weida_wire_version() (v C.uint64_t) {
	defer recoverNumber(&v)
	return C.uint64_t(wire.Version)
}

//export weida_alpn
func weida_alpn() (p *C.char) {
	defer recoverText(&p)
	return staticTexts()["alpn"]
}

//export weida_strerror
func weida_strerror(code C.int) (p *C.char) {
	defer recoverText(&p)
	if info, ok := describe(int(code)); ok {
		return staticTexts()[info.name]
	}
	return staticTexts()["unknown"]
}

//export weida_last_error
func weida_last_error(buf *C.char, capacity C.size_t, needed *C.size_t) (rc C.int) {
	defer recoverInto(&rc)
	// Not through fail(): reading the last error must not replace it.
	return C.weida_bridge_get_error(buf, capacity, needed)
}

//export weida_close
func weida_close(h C.weida_handle_t) (rc C.int) {
	defer recoverInto(&rc)
	o, err := handles.remove(uint64(h))
	if err != nil {
		return fail(err)
	}
	o.release()
	return codeOK
}

//export weida_handles_live
func weida_handles_live(count *C.uint64_t) (rc C.int) {
	defer recoverInto(&rc)
	if err := required(count, "count"); err != nil {
		return fail(err)
	}
	*count = C.uint64_t(handles.count())
	return codeOK
}
