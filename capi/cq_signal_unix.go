//go:build unix && !linux

package main

import (
	"fmt"
	"syscall"
)

// cqSignal is a queue's readable descriptor: a non-blocking pipe that
// holds one byte exactly while the queue holds outcomes.
type cqSignal struct{ r, w int }

func newCQSignal() (cqSignal, error) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return cqSignal{}, abiErr(codeRuntime, fmt.Sprintf("cannot create the completion queue's pipe: %v", err))
	}
	for _, fd := range p {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			_ = syscall.Close(p[0])
			_ = syscall.Close(p[1])
			return cqSignal{}, abiErr(codeRuntime, fmt.Sprintf("cannot make the completion queue's pipe non-blocking: %v", err))
		}
	}
	return cqSignal{r: p[0], w: p[1]}, nil
}

func (s cqSignal) fd() int { return s.r }

// raise makes the descriptor readable; the queue raises it only while clear.
func (s cqSignal) raise() { _, _ = syscall.Write(s.w, []byte{1}) }

// clear makes the descriptor unreadable again.
func (s cqSignal) clear() {
	var b [1]byte
	_, _ = syscall.Read(s.r, b[:])
}

func (s cqSignal) close() {
	_ = syscall.Close(s.r)
	_ = syscall.Close(s.w)
}
