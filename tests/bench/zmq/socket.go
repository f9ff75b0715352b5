package zmq

/*
#include <stdlib.h>
#include <zmq.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Type is a socket type.
type Type int

// The socket types the benchmarks use.
const (
	Req  Type = C.ZMQ_REQ
	Rep  Type = C.ZMQ_REP
	Pub  Type = C.ZMQ_PUB
	Sub  Type = C.ZMQ_SUB
	Push Type = C.ZMQ_PUSH
	Pull Type = C.ZMQ_PULL
)

// DontWait makes Send or Recv fail with ErrAgain instead of blocking.
const DontWait = C.ZMQ_DONTWAIT

// Socket options the benchmarks set.
const (
	optLinger    = C.ZMQ_LINGER
	optSubscribe = C.ZMQ_SUBSCRIBE
	optEndpoint  = C.ZMQ_LAST_ENDPOINT
	optSendHWM   = C.ZMQ_SNDHWM
	optRecvHWM   = C.ZMQ_RCVHWM
)

// Socket is one libzmq socket.
type Socket struct {
	ptr unsafe.Pointer
}

// Socket creates a socket of type t that discards unsent messages when
// closed (linger 0), so closing never waits on a gone peer.
func (c *Context) Socket(t Type) (*Socket, error) {
	ptr, err := C.zmq_socket(c.ptr, C.int(t))
	if ptr == nil {
		return nil, fmt.Errorf("zmq: creating a socket of type %d: %v", t, err)
	}
	s := &Socket{ptr: ptr}
	if err := s.setInt(optLinger, 0, "setting linger"); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Bind binds the socket to endpoint, such as "tcp://127.0.0.1:*".
func (s *Socket) Bind(endpoint string) error {
	ce := C.CString(endpoint)
	defer C.free(unsafe.Pointer(ce))
	return retry("binding "+endpoint, func() (C.int, error) {
		rc, err := C.zmq_bind(s.ptr, ce)
		return rc, err
	})
}

// Connect connects the socket to endpoint; libzmq connects in the
// background, so a peer may not be reached yet when it returns.
func (s *Socket) Connect(endpoint string) error {
	ce := C.CString(endpoint)
	defer C.free(unsafe.Pointer(ce))
	return retry("connecting to "+endpoint, func() (C.int, error) {
		rc, err := C.zmq_connect(s.ptr, ce)
		return rc, err
	})
}

// LastEndpoint is the endpoint last bound, with the port the kernel chose.
func (s *Socket) LastEndpoint() (string, error) {
	buf := make([]byte, 256)
	size := C.size_t(len(buf))
	err := retry("reading the bound endpoint", func() (C.int, error) {
		rc, err := C.zmq_getsockopt(s.ptr, optEndpoint, unsafe.Pointer(&buf[0]), &size)
		return rc, err
	})
	if err != nil {
		return "", err
	}
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), nil
}

// Subscribe adds a prefix filter on a SUB socket; "" takes every message.
func (s *Socket) Subscribe(prefix string) error {
	var ptr unsafe.Pointer
	if prefix != "" {
		cp := C.CString(prefix)
		defer C.free(unsafe.Pointer(cp))
		ptr = unsafe.Pointer(cp)
	}
	return retry("subscribing", func() (C.int, error) {
		rc, err := C.zmq_setsockopt(s.ptr, optSubscribe, ptr, C.size_t(len(prefix)))
		return rc, err
	})
}

// SetHighWaterMarks sets the send and receive queue bounds, in messages.
func (s *Socket) SetHighWaterMarks(send, recv int) error {
	if err := s.setInt(optSendHWM, send, "setting the send high-water mark"); err != nil {
		return err
	}
	return s.setInt(optRecvHWM, recv, "setting the receive high-water mark")
}

func (s *Socket) setInt(opt C.int, v int, what string) error {
	cv := C.int(v)
	return retry(what, func() (C.int, error) {
		rc, err := C.zmq_setsockopt(s.ptr, opt, unsafe.Pointer(&cv), C.size_t(unsafe.Sizeof(cv)))
		return rc, err
	})
}

// Send sends msg as one whole message; libzmq copies it before returning.
func (s *Socket) Send(msg []byte, flags int) error {
	var ptr unsafe.Pointer
	if len(msg) > 0 {
		ptr = unsafe.Pointer(&msg[0])
	}
	return retry("sending", func() (C.int, error) {
		rc, err := C.zmq_send(s.ptr, ptr, C.size_t(len(msg)), C.int(flags))
		return rc, err
	})
}

// Recv receives one whole message into buf and returns its length. A
// message longer than buf is an error (libzmq truncates it), so size buf
// one byte above the largest message expected.
func (s *Socket) Recv(buf []byte, flags int) (int, error) {
	if len(buf) == 0 {
		return 0, fmt.Errorf("zmq: receiving into an empty buffer")
	}
	n, err := retryN("receiving", func() (C.int, error) {
		rc, err := C.zmq_recv(s.ptr, unsafe.Pointer(&buf[0]), C.size_t(len(buf)), C.int(flags))
		return rc, err
	})
	if err != nil {
		return 0, err
	}
	if n >= len(buf) {
		return n, fmt.Errorf("zmq: a message of %d bytes does not fit the %d-byte buffer", n, len(buf)-1)
	}
	return n, nil
}

// Close closes the socket.
func (s *Socket) Close() error {
	return retry("closing a socket", func() (C.int, error) {
		rc, err := C.zmq_close(s.ptr)
		return rc, err
	})
}
