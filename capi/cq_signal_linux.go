package main

import (
	"encoding/binary"
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
func (s cqSignal) raise() {
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	_, _ = syscall.Write(s.efd, one[:])
}

// clear makes the descriptor unreadable again.
func (s cqSignal) clear() {
	var count [8]byte
	_, _ = syscall.Read(s.efd, count[:])
}

func (s cqSignal) close() { _ = syscall.Close(s.efd) }
