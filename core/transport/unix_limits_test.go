package transport

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

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
// and closes s. Workers may still wait to hand one over then (the handler's
// queue was full), so it goes on taking and refusing until s has closed:
// the close waits for those workers.
func holdTransfers(s *localServer) (release func()) {
	stop, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		var held []*InStream
		for {
			select {
			case in := <-s.h.data:
				held = append(held, in)
			case <-stop:
				for _, in := range held {
					in.Refuse(wire.CodeCanceled)
				}
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-drained
		closed := make(chan struct{})
		go func() {
			s.l.Close(wire.CodeShutdown, "test over")
			close(closed)
		}()
		for {
			select {
			case in := <-s.h.data:
				in.Refuse(wire.CodeCanceled)
			case <-closed:
				return
			}
		}
	}
}

// A peer that ignores max_local_streams and opens transfer after transfer
// (none finished, each an OS connection, each still open) has those beyond
// the link's bound reset LIMIT_EXCEEDED and closed: the accepting side
// tracked every one, a descriptor and a goroutine each, without limit.
func TestUnixStreamsBeyondTheLinksBoundAreReset(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	const extra = 100
	conns := joinMany(t, s.addr.SocketPath, link, maxAcceptedStreams+extra, false)
	var reset atomic.Int64
	var readers sync.WaitGroup
	limitExceeded := string(resetChunk(quic.StreamErrorCode(wire.CodeLimitExceeded)))
	for _, conn := range conns {
		readers.Go(func() {
			got, _ := io.ReadAll(conn) // until the server closes it (or the cleanup does)
			if string(got) == limitExceeded {
				reset.Add(1)
			}
		})
	}
	waitUntil(t, "the streams beyond the bound being reset", func() bool { return reset.Load() >= extra })
	for _, conn := range conns {
		_ = conn.Close()
	}
	readers.Wait()
	if n := reset.Load(); n != extra {
		t.Fatalf("%d raw transfers reset, want the %d beyond %d", n, extra, maxAcceptedStreams)
	}
}

// A requester that abandons its replies gets its streams back at once,
// while a slow replier still holds them: past maxAcceptedStreams of those,
// its next request was closed unanswered ("nothing answers exchanges at
// that path"), although it never had more than one stream open. Streams
// whose peer left are not counted against the bound.
func TestUnixAbandonedRepliesHeldByASlowReplierDoNotRefuseTheNextRequest(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	s.h.answers.Store(true)
	var held []*Exchange
	defer func() {
		for _, ex := range held {
			ex.Refuse(wire.ErrorRejected, wire.CodeCanceled)
		}
	}()
	request := func() (*ReplyHalf, *Exchange, error) {
		out, reply, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
		if err != nil {
			return nil, nil, err
		}
		if _, err := out.Finish(); err != nil {
			return nil, nil, err
		}
		recvd := make(chan error, 1)
		go func() {
			in, err := reply.Recv(testContext(t))
			if err == nil {
				_, err = io.ReadAll(in)
			}
			recvd <- err
		}()
		select {
		case ex := <-s.h.exchanges:
			return reply, ex, nil
		case err := <-recvd:
			return nil, nil, err
		}
	}
	for i := range maxAcceptedStreams + 20 {
		reply, ex, err := request()
		if err != nil {
			t.Fatalf("request %d, each before it abandoned: %v", i, err)
		}
		held = append(held, ex) // the replier is slow: it holds every request
		reply.Cancel()
	}
	reply, ex, err := request()
	if err != nil {
		t.Fatalf("a request after %d abandoned: %v", len(held), err)
	}
	defer reply.Cancel()
	rout, err := ex.Reply(&wire.Data{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rout.Finish(); err != nil {
		t.Fatal(err)
	}
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
