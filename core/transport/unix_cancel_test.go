package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/wire"
)

// unixKind starts a unix server (localKinds' unix entry).
func unixKind(t *testing.T) func(*testing.T, Config) *localServer {
	for _, k := range localKinds {
		if k.name == "unix" {
			return k.start
		}
	}
	t.Fatal("no unix transport among localKinds")
	return nil
}

// fillUnixSocket writes one-byte payload chunks to the stream's socket
// without waiting until the kernel takes no more: the peer does not read,
// so the next write on it waits for room. Each chunk is one small write,
// which a unix stream socket takes whole or not at all.
func fillUnixSocket(t *testing.T, s *unixStream) {
	t.Helper()
	raw, err := s.conn.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte{chunkPayload, 1, 0, 0, 0, 'x'}
	for full := false; !full; {
		var werr error
		if err := raw.Write(func(fd uintptr) bool {
			_, werr = syscall.Write(int(fd), chunk)
			return true // one attempt: EAGAIN is the answer sought
		}); err != nil {
			t.Fatal(err)
		}
		switch {
		case errors.Is(werr, syscall.EAGAIN):
			full = true
		case werr != nil:
			t.Fatal(werr)
		}
	}
}

// waitUntil polls cond, which turns true once another goroutine reached a
// state nothing signals (a write the kernel holds up), for at most 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 10s", what)
		}
	}
}

// A FIN that waits for room in a full unix socket (the puller does not
// read) is cut short by Cancel, as a blocked Write is: Finish held its lock
// across the FIN write, so a Cancel from a context's end waited for the
// peer to read. The reader never sees the transfer as complete.
func TestUnixCancelCutsAFINThatWaitsForRoom(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	out := openTransfer(t, c)
	if _, err := out.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	in := <-s.h.data // held, not read
	us, ok := out.s.(*unixStream)
	if !ok {
		t.Fatalf("a unix transfer's half is a %T", out.s)
	}
	fillUnixSocket(t, us)
	finished := make(chan error, 1)
	go func() {
		_, err := out.Finish()
		finished <- err
	}()
	waitUntil(t, "Finish writing the FIN", us.finning.Load)
	go out.Cancel()
	select {
	case <-finished:
	case <-time.After(20 * time.Second):
		t.Fatal("Finish stayed blocked on a full socket after Cancel")
	}
	if r := &out.rc; !errors.Is(r.Err(), errs.ErrCanceled) {
		t.Fatalf("receipt after Cancel: %v, want Canceled", r.Err())
	}
	if _, err := io.ReadAll(in); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("read of the canceled transfer: %v, want Canceled", err)
	}
}

// partialUnixRequest opens an exchange over unix and writes "partial" on
// it, without a FIN; ex is the replier's side of it.
func partialUnixRequest(t *testing.T) (*OutStream, *ReplyHalf, *Exchange) {
	t.Helper()
	s, c := connectLocal(t, unixKind(t))
	s.h.answers.Store(true)
	out, reply, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	ex := <-s.h.exchanges
	return out, reply, ex
}

// Refusing a request while its bytes still arrive wakes the read waiting
// for them, although the reply half is still open: a unix end closed its
// socket only once both directions were over, so the read stayed blocked
// (a Replier.Accept whose context ended never returned). The requester's
// writes fail from then on, and the reply still reaches it.
func TestUnixRefusingARequestWakesItsBlockedRead(t *testing.T) {
	out, reply, ex := partialUnixRequest(t)
	got, read := make(chan struct{}), make(chan error, 1)
	go func() {
		if _, err := io.ReadFull(ex.In, make([]byte, len("partial"))); err != nil {
			read <- err
			return
		}
		close(got)
		_, err := ex.In.Read(make([]byte, 1)) // waits: no more bytes, no FIN
		read <- err
	}()
	select {
	case <-got:
	case err := <-read:
		t.Fatalf("reading the request's first bytes: %v", err)
	}
	ex.In.Refuse(wire.CodeRejected)
	select {
	case err := <-read:
		if !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("the refused request's read: %v, want Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the refused request's read stayed blocked")
	}
	if _, err := out.Write([]byte("more")); err == nil {
		t.Fatal("a write to a refused request succeeded")
	}
	rout, err := ex.Reply(&wire.Data{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rout.Write([]byte("no")); err != nil {
		t.Fatal(err)
	}
	if _, err := rout.Finish(); err != nil {
		t.Fatal(err)
	}
	rin, err := reply.Recv(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(rin); err != nil || string(got) != "no" {
		t.Fatalf("reply %q, %v; want the replier's answer", got, err)
	}
}

// A cancel that comes once the FIN is queued (a Reply's or a Survey's
// context ending just then) leaves the transfer finished: Finish reported
// Canceled for a transfer its reader got whole.
func TestUnixCancelAfterTheFINIsQueuedLeavesFinishSucceeded(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	out := openTransfer(t, c)
	if _, err := out.Write([]byte("whole")); err != nil {
		t.Fatal(err)
	}
	defer faults.Set(&faults.LocalFINQueued, out.CancelUnfinished)()
	if _, err := out.Finish(); err != nil {
		t.Fatalf("Finish of a transfer whose FIN was queued before the cancel: %v", err)
	}
	if got, err := io.ReadAll(<-s.h.data); err != nil || string(got) != "whole" {
		t.Fatalf("read %q, %v; want the whole transfer", got, err)
	}
}

// The accepting side opens its streams to a dialler on the reverse
// connections the dialler parked; one refused over maxAcceptedStreams
// (the dialler holds too many unfinished) must be replaced like any used
// one, or the dialler ends with nothing parked and every later open fails.
func TestUnixDiallerKeepsParkingAfterRefusalsAtTheCap(t *testing.T) {
	s := unixKind(t)(t, NewConfig())
	dialler := newRecorder()
	dialler.answers.Store(true)
	c, err := dialLocal(t, s, NewConfig(), dialler)
	if err != nil {
		t.Fatal(err)
	}
	link := c.local.(*unixLink)
	var held []*Exchange
	stop, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case ex := <-dialler.exchanges:
				held = append(held, ex)
			case <-stop:
				return
			}
		}
	}()
	var sc *Conn
	waitUntil(t, "the server's connection", func() bool {
		if cs := s.l.Conns(); len(cs) > 0 {
			sc = cs[0]
		}
		return sc != nil
	})
	if !sc.awaitNegotiated() {
		t.Fatal("the server's connection did not negotiate")
	}
	waitUntil(t, "the dialler parking", func() bool { return link.slots.parkedNow() == MaxParkedReverse })
	// Exchanges the dialler holds and whose replies are abandoned: the
	// server's slots come back, the dialler's streams stay live, and those
	// past its bound are refused.
	for range maxAcceptedStreams + 40 {
		ctx, cancel := context.WithTimeout(testContext(t), 2*time.Second)
		out, reply, err := sc.OpenBi(ctx, &wire.Data{Endpoint: wire.Some("/t")})
		cancel()
		if err != nil {
			break
		}
		_, _ = out.Write([]byte("q"))
		_, _ = out.Finish()
		reply.Cancel()
	}
	close(stop)
	<-drained
	for _, ex := range held {
		ex.ReplyError(wire.ErrorNoReply)
		ex.In.Refuse(wire.CodeRejected)
	}
	waitUntil(t, "the dialler parking again", func() bool { return link.slots.parkedNow() == MaxParkedReverse })
	out, err := sc.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
	if err != nil {
		t.Fatalf("an open once the dialler caught up: %v", err)
	}
	out.Cancel()
}

// Cancel on a transfer whose socket is full, with no write under way (the
// sender paused once the peer stopped reading), returns at once: it wrote
// the RESET chunk with a write that waited for room, under the transfer's
// lock. The reader still sees a reset, never a complete transfer.
func TestUnixCancelOfAnIdleTransferOnAFullSocketReturns(t *testing.T) {
	s, c := connectLocal(t, unixKind(t))
	out := openTransfer(t, c)
	if _, err := out.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	in := <-s.h.data // held, not read
	fillUnixSocket(t, out.s.(*unixStream))
	canceled := make(chan struct{})
	go func() {
		out.Cancel()
		close(canceled)
	}()
	select {
	case <-canceled:
	case <-time.After(20 * time.Second):
		t.Fatal("Cancel stayed blocked on a full socket")
	}
	if _, err := io.ReadAll(in); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("read of the canceled transfer: %v, want Canceled", err)
	}
}

// A replier that refused the rest of a request (its read side shut) still
// learns that the requester left: its Canceled fired once the requester
// abandoned the reply before, and never after the refusal.
func TestUnixReplierLearnsTheRequesterLeftAfterRefusingTheRequest(t *testing.T) {
	out, reply, ex := partialUnixRequest(t)
	ex.In.Refuse(wire.CodeRejected)
	canceled := ex.Canceled()
	select {
	case <-canceled:
		t.Fatal("Canceled fired while the requester still waits for the reply")
	default:
	}
	out.Cancel()
	reply.Cancel()
	select {
	case <-canceled:
	case <-time.After(20 * time.Second):
		t.Fatal("the replier never learned that its requester left")
	}
}

// requesterWatches counts the goroutines watching for a unix requester's
// leaving (watchRequester).
func requesterWatches() int {
	buf := make([]byte, 1<<22)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "watchRequester(")
}

// A reply canceled while its socket is full is cut, and the watch for the
// requester's leaving, started while the request still arrived, ends with
// it: a cut never told the watch that reading was over, so it waited for
// ever.
func TestUnixACutReplyEndsItsRequesterWatch(t *testing.T) {
	base := requesterWatches()
	out, reply, ex := partialUnixRequest(t)
	defer out.Cancel()
	defer reply.Cancel()
	_ = ex.Canceled() // starts the watch, which waits for the request's end
	rout, err := ex.Reply(&wire.Data{})
	if err != nil {
		t.Fatal(err)
	}
	fillUnixSocket(t, ex.s.(*unixStream))
	rout.Cancel() // no room for a RESET chunk: the stream is cut
	waitUntil(t, "the requester watch ending", func() bool { return requesterWatches() == base })
}

// socketPair is a connected pair of unix stream sockets.
func socketPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// A requester whose request write fails (the replier stopped reading)
// while it reads the reply is Rejected, whatever the reply's bytes: the
// failure peeked at the socket for a RESET chunk, and found one in the
// middle of the reply's payload, past what the reader had buffered.
func TestUnixAFailedRequestWriteDoesNotReadTheReplyAsAReset(t *testing.T) {
	ctrl, _ := socketPair(t) // its peer stays open: the group is live
	l := newUnixLink(true, "", ctrl, groupToken{})
	mine, replier := socketPair(t)
	s := newUnixStream(l, mine, nil, 1, func() {}) // opened as an exchange
	if !l.track(s) {
		t.Fatal("the stream was not tracked")
	}
	payload := make([]byte, 2*readBufferSize)
	copy(payload[readBufferSize-5:], resetChunk(quic.StreamErrorCode(wire.CodeLimitExceeded))) // where the buffered read stops
	chunk := binary.LittleEndian.AppendUint32([]byte{chunkPayload}, uint32(len(payload)))
	if _, err := replier.Write(append(chunk, payload...)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	_ = replier.CloseRead() // the replier refuses the rest of the request
	if _, err := s.Write([]byte("more")); !errors.Is(err, errs.ErrRejected) {
		t.Fatalf("the request's write: %v, want Rejected", err)
	}
}
