package transport

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// joinMany opens n raw transfer connections into the group of link, each
// holding the start of a DATA transfer and no FIN, and closes them when
// the test ends. It stops early, returning what it opened, once a dial
// fails (the process ran out of descriptors) when stopOnError is set.
func joinMany(t *testing.T, socketPath string, link *unixLink, n int, stopOnError bool) []net.Conn {
	t.Helper()
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for i := range n {
		conn, err := joinGroup(socketPath, link.token[:])
		if err != nil {
			if stopOnError {
				return conns
			}
			t.Fatalf("join %d: %v", i, err)
		}
		conns = append(conns, conn)
	}
	return conns
}

// holdTransfers takes every transfer s's handler is given and reads none,
// as an application that does not keep up; the returned func refuses them
// and closes s, whose workers then no longer wait for the handler.
func holdTransfers(s *localServer) (release func()) {
	stop, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		var held []*InStream
		defer func() {
			for _, in := range held {
				in.Refuse(wire.CodeCanceled)
			}
		}()
		for {
			select {
			case in := <-s.h.data:
				held = append(held, in)
			case <-stop:
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-drained
		s.l.Close(wire.CodeShutdown, "test over")
	}
}

// A peer that ignores max_local_streams and opens transfer after transfer
// (none finished, each an OS connection) has those beyond the link's bound
// closed unanswered: the accepting side tracked every one, a descriptor
// and a goroutine each, without limit.
func TestUnixStreamsBeyondTheLinksBoundAreClosed(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	const extra = 100
	conns := joinMany(t, s.addr.SocketPath, link, maxAcceptedStreams+extra, false)
	var closed atomic.Int64
	var readers sync.WaitGroup
	for _, conn := range conns {
		readers.Go(func() {
			if _, err := conn.Read(make([]byte, 1)); err != nil {
				closed.Add(1) // closed by the server (or by the cleanup)
			}
		})
	}
	waitUntil(t, "the streams beyond the bound being closed", func() bool { return closed.Load() >= extra })
	if n := closed.Load(); n != extra {
		t.Fatalf("%d raw transfers closed, want the %d beyond %d", n, extra, maxAcceptedStreams)
	}
	for _, conn := range conns {
		_ = conn.Close()
	}
	readers.Wait()
}

// Running out of descriptors fails an accept (EMFILE); the unix socket
// must be served again once descriptors are back, instead of staying bound
// with nothing accepting on it.
func TestUnixListenerAcceptsAgainAfterRunningOutOfDescriptors(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = 400
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("cannot lower RLIMIT_NOFILE: %v", err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
		}
	}
	t.Cleanup(restore)
	// Dial until the process has no descriptor left: the connections the
	// kernel queued behind them then fail the listener's accept.
	conns := joinMany(t, s.addr.SocketPath, link, 1000, true)
	if len(conns) == 1000 {
		t.Fatal("1000 connections opened under a limit of 400 descriptors")
	}
	for _, conn := range conns {
		_ = conn.Close()
	}
	restore()
	ctx, cancel := context.WithTimeout(testContext(t), 20*time.Second)
	defer cancel()
	c2, err := Dial(ctx, s.addr, identity.Trust{}, nil, NewConfig(), newRecorder())
	if err != nil {
		t.Fatalf("a client dialled once descriptors were back: %v", err)
	}
	c2.Close(wire.CodeNoError, "")
}
