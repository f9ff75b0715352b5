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
)

// inBytes copies a borrowed (data, len) payload: the library keeps nothing
// of the caller's memory past the call.
func inBytes(data unsafe.Pointer, n C.size_t, what string) ([]byte, error) {
	lent, err := lendBytes(data, n, what)
	if err != nil {
		return nil, err
	}
	return append([]byte{}, lent...), nil // empty, not nil, for length 0
}

// lendBytes views a borrowed (data, len) payload in place (nil for length
// 0): only for a Go call that copies what it keeps before it returns.
func lendBytes(data unsafe.Pointer, n C.size_t, what string) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if data == nil {
		return nil, invalid(what + " is NULL but its length is not 0")
	}
	if uint64(n) > math.MaxInt {
		return nil, invalid(what + " is longer than the library can address")
	}
	return unsafe.Slice((*byte)(data), int(n)), nil
}

// inText copies a borrowed NUL-terminated string.
func inText(p *C.char, what string) (string, error) {
	if p == nil {
		return "", invalid(what + " must not be NULL")
	}
	return C.GoString(p), nil
}

// outText writes s into a caller-owned buffer (see weida.h "Bytes out").
func outText(s string, buf *C.char, capacity C.size_t, needed *C.size_t) C.int {
	if needed != nil {
		*needed = C.size_t(len(s) + 1)
	}
	if capacity == 0 {
		return fail(abiErr(codeTruncated, "a buffer of 0 bytes cannot hold the text and its NUL"))
	}
	if buf == nil {
		return fail(invalid("the text buffer is NULL but its capacity is not 0"))
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(min(uint64(capacity), math.MaxInt)))
	n := copy(dst[:len(dst)-1], s)
	dst[n] = 0
	if n < len(s) {
		return fail(abiErr(codeTruncated, "the text needs a buffer of "+strconv.Itoa(len(s)+1)+" bytes"))
	}
	return codeOK
}

// seconds converts a deadline: finite and not negative.
func seconds(s C.double, what string) (time.Duration, error) {
	f := float64(s)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, invalid(what + " must be a finite number of seconds, not negative")
	}
	if f > float64(math.MaxInt64)/float64(time.Second) {
		return 0, invalid(what + " is too far in the future")
	}
	return time.Duration(f * float64(time.Second)), nil
}

// ceiling converts a byte ceiling; size_t beyond int64 means "no ceiling
// the library could reach".
func ceiling(n C.size_t) int64 { return int64(min(uint64(n), math.MaxInt64)) }

// word is an integer out-parameter type of the ABI (handles, counts).
type word interface{ ~uint64 | ~uint32 | ~int32 }

// required rejects a NULL out-parameter before anything is done.
func required[T any](p *T, what string) error {
	if p == nil {
		return invalid(what + " must not be NULL")
	}
	return nil
}
