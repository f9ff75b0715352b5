package zmq

/*
#include <zmq.h>
*/
import "C"

import (
	"time"
	"unsafe"
)

// Poller waits for any of a fixed set of sockets to have a message, so one
// goroutine can serve many sockets.
type Poller struct {
	items []C.zmq_pollitem_t
}

// NewPoller polls sockets for input.
func NewPoller(sockets []*Socket) *Poller {
	items := make([]C.zmq_pollitem_t, len(sockets))
	for i, s := range sockets {
		items[i].socket = s.ptr
		items[i].events = C.ZMQ_POLLIN
	}
	return &Poller{items: items}
}

// Wait waits up to timeout for input and returns the indexes of the
// sockets that have a message.
func (p *Poller) Wait(timeout time.Duration, ready []int) ([]int, error) {
	ready = ready[:0]
	if len(p.items) == 0 {
		return ready, nil
	}
	_, err := retryN("polling", func() (C.int, error) {
		rc, err := C.zmq_poll((*C.zmq_pollitem_t)(unsafe.Pointer(&p.items[0])), C.int(len(p.items)), C.long(timeout.Milliseconds()))
		return rc, err
	})
	if err != nil {
		return ready, err
	}
	for i := range p.items {
		if p.items[i].revents&C.ZMQ_POLLIN != 0 {
			ready = append(ready, i)
		}
	}
	return ready, nil
}
