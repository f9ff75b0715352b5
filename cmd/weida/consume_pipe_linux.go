package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// errReaderGone is a pipe whose reader closed it with bytes unread.
var errReaderGone = errors.New("stdout's reader closed the pipe without reading the message")

// Bounds of the pause between two looks at a pipe: Linux signals a pipe's
// reader leaving (EPOLLERR) but not its emptying, so emptiness is looked
// at again after each pause, and a reader that keeps up is seen at once.
const (
	firstHandoverPause = time.Millisecond
	lastHandoverPause  = 100 * time.Millisecond
)

// pipeHandover returns, when f is a pipe, a wait that returns once the
// pipe holds no byte unread (its reader took the message) and fails with
// errReaderGone when the reader closed it first: a write a pipe buffered
// is not yet handed over, as `sub --credit 1 URL | head -1` shows. For
// anything else it returns nil: a flushed write is handed over.
func pipeHandover(f *os.File) (func(context.Context) error, error) {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		return nil, nil
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, nil
	}
	// The poller lives as long as the process: one sub, one stdout.
	poller, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("cannot watch stdout: %w", os.NewSyscallError("epoll_create1", err))
	}
	var ctlErr error
	// No events asked: EPOLLERR, the reader's leaving, is always reported.
	if err := raw.Control(func(fd uintptr) {
		ctlErr = syscall.EpollCtl(poller, syscall.EPOLL_CTL_ADD, int(fd), &syscall.EpollEvent{Fd: int32(fd)})
	}); err != nil || ctlErr != nil {
		_ = syscall.Close(poller)
		return nil, fmt.Errorf("cannot watch stdout: %w", os.NewSyscallError("epoll_ctl", errors.Join(err, ctlErr)))
	}
	return func(ctx context.Context) error { return awaitPipeEmpty(ctx, raw, poller) }, nil
}

// awaitPipeEmpty waits until the pipe raw writes to holds nothing unread.
func awaitPipeEmpty(ctx context.Context, raw syscall.RawConn, poller int) error {
	var events [1]syscall.EpollEvent
	for pause := firstHandoverPause; ; pause = min(2*pause, lastHandoverPause) {
		unread, err := pipeUnread(raw)
		if err != nil || unread == 0 {
			return err
		}
		n, err := syscall.EpollWait(poller, events[:], int(pause/time.Millisecond))
		switch {
		case n > 0:
			// The reader left; it may have read everything first.
			if unread, err := pipeUnread(raw); err != nil || unread > 0 {
				return errors.Join(errReaderGone, err)
			}
			return nil
		case err != nil && !errors.Is(err, syscall.EINTR):
			return os.NewSyscallError("epoll_wait", err)
		case ctx.Err() != nil:
			return context.Cause(ctx)
		}
	}
}

// pipeUnread is how many bytes the pipe holds that its reader has not
// read (FIONREAD, which Linux answers on either end of a pipe).
// x/sys/unix makes the call, so nothing outside capi/ needs unsafe.
func pipeUnread(raw syscall.RawConn) (int, error) {
	var unread int
	var ioctlErr error
	err := raw.Control(func(fd uintptr) {
		unread, ioctlErr = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	})
	if err == nil && ioctlErr != nil {
		err = os.NewSyscallError("ioctl FIONREAD", ioctlErr)
	}
	return unread, err
}
