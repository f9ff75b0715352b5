package zmq

/*
#cgo pkg-config: libzmq
#include <zmq.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// ErrTerminated is returned by calls on sockets whose context was shut down.
var ErrTerminated = errors.New("zmq: the context was shut down")

// ErrAgain is returned by a non-blocking call that could not proceed now.
var ErrAgain = errors.New("zmq: the operation would block")

// Context is a libzmq context: its I/O threads and sockets.
type Context struct {
	ptr unsafe.Pointer
}

// NewContext creates a context with libzmq's default of one I/O thread.
func NewContext() (*Context, error) {
	ptr, err := C.zmq_ctx_new()
	if ptr == nil {
		return nil, fmt.Errorf("zmq: creating a context: %w", err)
	}
	return &Context{ptr: ptr}, nil
}

// Shutdown makes every blocking call on the context's sockets return
// ErrTerminated; the sockets must still be closed before Term.
func (c *Context) Shutdown() {
	C.zmq_ctx_shutdown(c.ptr)
}

// Term ends the context once every socket is closed.
func (c *Context) Term() error {
	return retry("terminating the context", func() (C.int, error) {
		rc, err := C.zmq_ctx_term(c.ptr)
		return rc, err
	})
}

// Version is the linked libzmq's version, such as "4.3.4".
func Version() string {
	var major, minor, patch C.int
	C.zmq_version(&major, &minor, &patch)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}

// retry runs call until it does not fail with EINTR, which is routine here:
// the Go runtime signals threads (preemption) while they block in libzmq.
// A negative result becomes an error naming what was being done.
func retry(what string, call func() (C.int, error)) error {
	_, err := retryN(what, call)
	return err
}

// retryN is retry for calls whose non-negative result is a count.
func retryN(what string, call func() (C.int, error)) (int, error) {
	for {
		rc, err := call()
		if rc >= 0 {
			return int(rc), nil
		}
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			return 0, fmt.Errorf("zmq: %s: %v", what, err)
		}
		switch errno {
		case syscall.EINTR:
			continue
		case C.ETERM:
			return 0, ErrTerminated
		case syscall.EAGAIN:
			return 0, ErrAgain
		}
		return 0, fmt.Errorf("zmq: %s: %s", what, C.GoString(C.zmq_strerror(C.int(errno))))
	}
}
