package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -Wall -Wextra -Werror
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"runtime/debug"
	"unsafe"
)

// fail records err's sentence as the calling thread's last error (the C
// side keeps it per thread, and a C→Go call runs on the caller's thread)
// and returns err's code.
func fail(err error) C.int {
	text := err.Error()
	C.weida_bridge_set_error(textPtr(text), C.size_t(len(text)))
	return C.int(codeOf(err))
}

// textPtr lends C the bytes of s for the duration of one call.
func textPtr(s string) *C.char {
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s)))
}

// recoverInto is deferred by every export: a panic becomes
// WEIDA_EINTERNAL with the fault as the last error, never an unwinding
// across the C boundary.
func recoverInto(rc *C.int) {
	if r := recover(); r != nil {
		*rc = fail(internalFault(r))
	}
}

// recoverText is recoverInto for the exports that return static text: a
// fault returns a fixed sentence instead.
func recoverText(p **C.char) {
	if r := recover(); r != nil {
		*p = (*C.char)(unsafe.Pointer(&C.weida_bridge_fault_text))
	}
}

// recoverNumber is recoverInto for the exports that return a number: a
// fault returns 0, which no such function returns otherwise.
func recoverNumber[T C.uint32_t | C.uint64_t](v *T) {
	if r := recover(); r != nil {
		*v = 0
	}
}

// internalFault describes a recovered panic, with the stack for a report.
func internalFault(r any) error {
	return abiErr(codeInternal, fmt.Sprintf("internal fault (please report): %v\n%s", r, debug.Stack()))
}

// inCallback reports whether the calling thread is running a completion
// callback, where a blocking call would stall a library thread.
func inCallback() bool { return C.weida_bridge_in_callback() != 0 }

var errBlockingInCallback = abiErr(codeRuntime,
	"a blocking weida call was made from inside a completion callback; use its _async form")
