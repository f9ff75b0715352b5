package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
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
// the link's bound wait, and those beyond the waiting bound reset
// LIMIT_EXCEEDED and closed: the accepting side tracked every one, a
// descriptor and a goroutine each, without limit. A transfer or a request
// refused so fails LimitExceeded: a one-way opener read nothing back, and
// a request's writer did not look, so a refusal by the bound looked like a
// reader that stopped (Rejected).
func TestUnixStreamsBeyondTheLinksBoundsAreReset(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	const extra = 100
	conns := joinMany(t, s.addr.SocketPath, link, maxAcceptedStreams+maxWaitingStreams+extra, false)
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
	waitUntil(t, "the streams beyond the bounds being reset", func() bool { return reset.Load() >= extra })

	out := openTransfer(t, c)
	<-out.s.(*unixStream).Context().Done() // the refusal arrived
	if _, err := out.Write([]byte("x")); !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("a write to a transfer beyond the bounds: %v, want LimitExceeded", err)
	}
	req, reply, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the request being refused", func() bool { return peerHungUp(req.s.(*unixStream).conn) })
	if _, err := req.Write([]byte("x")); !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("a write to a request beyond the bounds: %v, want LimitExceeded", err)
	}
	if _, err := reply.Recv(testContext(t)); !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("the reply to a request beyond the bounds: %v, want LimitExceeded", err)
	}
	for _, conn := range conns {
		_ = conn.Close()
	}
	readers.Wait()
	if n := reset.Load(); n != extra {
		t.Fatalf("%d raw transfers reset, want the %d beyond %d + %d", n, extra, maxAcceptedStreams, maxWaitingStreams)
	}
}

// A requester that abandons its replies gets its streams back at once,
// while a slow replier still holds them: past maxAcceptedStreams of those,
// its next request was closed unanswered ("nothing answers exchanges at
// that path"), although it never had more than one stream open. It waits
// instead, as for QUIC stream credit, and is served once the replier is
// done with one of those it holds.
func TestUnixAbandonedRepliesHeldByASlowReplierDelayTheNextRequest(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	s.h.answers.Store(true)
	var held []*Exchange
	defer func() {
		for _, ex := range held {
			ex.Refuse(wire.ErrorRejected, wire.CodeCanceled)
		}
	}()
	type request struct {
		reply *ReplyHalf
		recvd chan error // the reply's Recv and read
	}
	send := func() request {
		out, reply, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		r := request{reply, make(chan error, 1)}
		go func() {
			in, err := reply.Recv(testContext(t))
			if err == nil {
				_, err = io.ReadAll(in)
			}
			r.recvd <- err
		}()
		return r
	}
	served := func(r request, what string) *Exchange {
		select {
		case ex := <-s.h.exchanges:
			return ex
		case err := <-r.recvd:
			t.Fatalf("%s: %v", what, err)
			return nil
		}
	}
	for i := range maxAcceptedStreams {
		r := send()
		held = append(held, served(r, fmt.Sprintf("request %d, each before it abandoned", i)))
		r.reply.Cancel()
		<-r.recvd
	}
	next := send() // waits: the replier holds maxAcceptedStreams
	held[0].Refuse(wire.ErrorRejected, wire.CodeCanceled)
	held = held[1:]
	ex := served(next, fmt.Sprintf("a request after %d abandoned", maxAcceptedStreams))
	rout, err := ex.Reply(&wire.Data{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rout.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := <-next.recvd; err != nil {
		t.Fatalf("the reply to the request that waited: %v", err)
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

// A peer that opens streams and hangs up on them, while the application
// holds what arrived, does not make this side hold more than the bounds'
// descriptors: counting out the streams whose peer had left (a first fix
// of the bound) let every round of opens add maxAcceptedStreams more.
func TestUnixStreamsAPeerLeftStillCountAgainstTheBound(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	server := serverLink(s.l, link)
	known := func() int { // the peer's streams the server holds or keeps waiting
		server.mu.Lock()
		defer server.mu.Unlock()
		return len(server.live) + len(server.waiting)
	}
	first := joinMany(t, s.addr.SocketPath, link, maxAcceptedStreams, false)
	waitUntil(t, "the first streams being held", func() bool { return known() == maxAcceptedStreams })
	for _, conn := range first {
		_ = conn.Close() // the peer hangs up; the application still holds them
	}
	const n = maxAcceptedStreams + maxWaitingStreams + 10
	var reset atomic.Int64
	var readers sync.WaitGroup
	limitExceeded := string(resetChunk(quic.StreamErrorCode(wire.CodeLimitExceeded)))
	for _, conn := range joinMany(t, s.addr.SocketPath, link, n, false) {
		readers.Go(func() {
			if got, _ := io.ReadAll(conn); string(got) == limitExceeded {
				reset.Add(1)
			}
		})
	}
	waitUntil(t, "every later stream held, waiting or reset", func() bool {
		return known()-maxAcceptedStreams+int(reset.Load()) == n
	})
	if k := known(); k > maxAcceptedStreams+maxWaitingStreams {
		t.Fatalf("the server holds %d of the peer's streams, over %d + %d", k, maxAcceptedStreams, maxWaitingStreams)
	}
	server.end(peerClosedError()) // the cleanup closes the rest; the readers end
	readers.Wait()
}

// keeper is a handler that keeps every transfer unread and never blocks,
// as an application whose queue holds what it has not read yet.
type keeper struct {
	*recorder
	mu   sync.Mutex
	kept []*InStream
}

func (k *keeper) Data(_ *Conn, in *InStream) {
	k.mu.Lock()
	k.kept = append(k.kept, in)
	k.mu.Unlock()
}

// Closing the listener ends the streams waiting for room while the
// application still holds the streams that fill it: the close waited for
// every connection's admission first, and those waited for ever.
func TestUnixListenerClosesWithStreamsWaitingForRoom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	k := &keeper{recorder: newRecorder()}
	l, err := ListenUnix(path, NewConfig(), k)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialLocal(t, &localServer{l: l, addr: identity.Address{Scheme: identity.SchemeUnix, SocketPath: path, Path: "/t"}}, NewConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	link := c.local.(*unixLink)
	server := serverLink(l, link)
	joinMany(t, path, link, maxAcceptedStreams+10, false)
	waitUntil(t, "streams waiting for room", func() bool { return waitingOn(server) == 10 })
	l.Close(wire.CodeShutdown, "test over") // must return
}

// serverLink is the accepting side's link of the group link (a dialled
// unix connection) belongs to.
func serverLink(l *Listener, link *unixLink) *unixLink {
	b := l.local.(*unixBinder)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.groups[link.token]
}

// waitingOn counts the streams waiting for room on an accepting link.
func waitingOn(l *unixLink) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.waiting)
}

// A full waiting room whose peers all hung up makes room for the next
// stream: the hung-up waiters were marked to go but still filled the room
// when the stream that found it full was judged, so it was reset
// LIMIT_EXCEEDED (a requester abandoning requests as they waited got that
// once in 256).
func TestUnixAWaitingRoomOfPeersThatLeftTakesTheNextStream(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	link := c.local.(*unixLink)
	defer holdTransfers(s)()
	server := serverLink(s.l, link)
	joinMany(t, s.addr.SocketPath, link, maxAcceptedStreams, false)
	waitUntil(t, "the first streams being held", func() bool { // so that the later ones are those waiting
		server.mu.Lock()
		defer server.mu.Unlock()
		return server.accepted == maxAcceptedStreams
	})
	waiters := joinMany(t, s.addr.SocketPath, link, maxWaitingStreams, false)
	waitUntil(t, "the waiting room filling", func() bool { return waitingOn(server) == maxWaitingStreams })
	for _, conn := range waiters {
		_ = conn.Close()
	}
	next := joinMany(t, s.addr.SocketPath, link, 1, false)[0]
	reset := make(chan []byte, 1)
	go func() {
		got, _ := io.ReadAll(next) // the server's reset and close, or the cleanup's close
		reset <- got
	}()
	waitUntil(t, "the next stream waiting alone", func() bool {
		select {
		case got := <-reset:
			t.Fatalf("the next stream was refused (%x) though every waiter had left", got)
		default:
		}
		return waitingOn(server) == 1
	})
}
