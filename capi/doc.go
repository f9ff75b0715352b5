// Command capi is weida's C ABI: built with -buildmode=c-shared into
// libweida.so (and -buildmode=c-archive into libweida.a) behind the
// hand-written include/weida.h. Python (ctypes) and Node (N-API) bind to
// it; build/lib.sh builds it. The design is SURFACE.md §3.
//
// The boundary is thin: every export converts its arguments, resolves its
// handles and calls the public Go API (package weida); no protocol
// behaviour lives here. What it adds is only what C needs:
//
//   - Handles (handles.go): a generation-tagged table maps 64-bit numbers to
//     Go values, so C never holds a Go pointer and a zero, stale, forged or
//     wrong-role handle is WEIDA_EBADHANDLE, never a crash. No Go value
//     travels through C as a void *, so neither runtime/cgo.Handle nor
//     go-pointer is needed: the table is the generation-checked form of both.
//   - Lifetimes (scope.go): a child handle holds its runtime, which shuts
//     down with the last handle; closing an endpoint ends a context that
//     wakes its blocked calls with WEIDA_ECANCELED.
//   - Errors (codes.go, fail.go, bridge.c): an int code per call (1..26 the
//     library's kinds, 100..105 the ABI's), the sentence kept per C thread
//     for weida_last_error, and recover() in every export.
//   - Waiting calls (ops.go): each is prepared once and run either on the
//     calling thread (the blocking form) or on a goroutine that reports to a
//     C callback exactly once (the _async form), cancellable by op handle.
//   - Bytes (convert.go, msg.go): inputs are copied once; whole received
//     payloads are copied into C memory owned by their handle.
//
// Only this package may import "C" or "unsafe" (guard_test.go checks it).
package main
