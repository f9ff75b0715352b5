package main

/*
#include "cq.h"
*/
import "C"

import (
	"fmt"
	"syscall"
)

// cqSignal is a queue's readable descriptor: an eventfd, one counter that
// is non-zero exactly while the queue holds outcomes.
type cqSignal struct{ efd int }

func newCQSignal() (cqSignal, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return cqSignal{}, abiErr(codeRuntime, fmt.Sprintf("cannot create the completion queue's eventfd: %v", errno))
	}
	return cqSignal{efd: int(fd)}, nil
}

func (s cqSignal) fd() int { return s.efd }

// raise makes the descriptor readable. The counter cannot overflow: the
// queue raises it only while it is clear.
//
// Raw system calls: neither call can block (the descriptor is
// non-blocking), so telling the scheduler about them is pure cost.
func (s cqSignal) raise() { C.weida_bridge_cq_raise(C.int(s.efd)) }

// clear makes the descriptor unreadable again.
func (s cqSignal) clear() { C.weida_bridge_cq_clear(C.int(s.efd)) }

func (s cqSignal) close() { _ = syscall.Close(s.efd) }
