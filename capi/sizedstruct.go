package main

/*
#include "bridge.h"
*/
import "C"

import (
	"strconv"
	"unsafe"
)

// Option and result structs lead with their own size_t size (weida.h), so
// a program built against an older or newer header keeps working: fields
// the caller's struct does not reach keep their defaults, and fields the
// library does not know must be zero.

// readSized copies the caller's struct *src (of the size it declares) into
// a zeroed T. A NULL src is every default.
func readSized[T any](src *T, what string) (T, error) {
	var dst T
	if src == nil {
		return dst, nil
	}
	size := uint64(*(*C.size_t)(unsafe.Pointer(src)))
	known := uint64(unsafe.Sizeof(dst))
	if size < uint64(unsafe.Sizeof(C.size_t(0))) {
		return dst, invalid(what + ".size must be set to sizeof the struct, got " + strconv.FormatUint(size, 10))
	}
	n := min(size, known)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst)), n), unsafe.Slice((*byte)(unsafe.Pointer(src)), n))
	if size > known {
		tail := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(src), known)), size-known)
		for _, b := range tail {
			if b != 0 {
				return dst, invalid(what + " sets fields this library does not know (a newer header?)")
			}
		}
	}
	return dst, nil
}

// writeSized fills as much of the caller's struct *dst as its declared size
// covers with val, leaving dst's size field as the caller set it.
func writeSized[T any](dst *T, val T, what string) error {
	if dst == nil {
		return invalid(what + " must not be NULL")
	}
	size := uint64(*(*C.size_t)(unsafe.Pointer(dst)))
	sizeField := uint64(unsafe.Sizeof(C.size_t(0)))
	if size < sizeField {
		return invalid(what + ".size must be set to sizeof the struct, got " + strconv.FormatUint(size, 10))
	}
	n := min(size, uint64(unsafe.Sizeof(val)))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(dst)), n)[sizeField:], unsafe.Slice((*byte)(unsafe.Pointer(&val)), n)[sizeField:])
	return nil
}
