package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/wire"
)

// localServer is a local listener and the address that dials it.
type localServer struct {
	l    *Listener
	h    *recorder
	addr identity.Address
}

var testBusSeq atomic.Int64

// localKinds are the local transports, each able to start a server.
var localKinds = []struct {
	name  string
	start func(t *testing.T, cfg Config) *localServer
}{
	{"inproc", func(t *testing.T, cfg Config) *localServer {
		bus := fmt.Sprintf("transport-test-%d", testBusSeq.Add(1))
		h := newRecorder()
		l, err := ListenInproc(bus, cfg, h)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
		return &localServer{l: l, h: h, addr: identity.Address{Scheme: identity.SchemeInproc, Bus: bus, Path: "/t"}}
	}},
	{"unix", func(t *testing.T, cfg Config) *localServer {
		dir, err := filepath.Abs(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.sock")
		h := newRecorder()
		l, err := ListenUnix(path, cfg, h)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
		return &localServer{l: l, h: h, addr: identity.Address{Scheme: identity.SchemeUnix, SocketPath: path, Path: "/t"}}
	}},
}

func forEachLocal(t *testing.T, body func(t *testing.T, start func(*testing.T, Config) *localServer)) {
	for _, k := range localKinds {
		t.Run(k.name, func(t *testing.T) { body(t, k.start) })
	}
}

func dialLocal(t *testing.T, s *localServer, cfg Config, h Handler) (*Conn, error) {
	t.Helper()
	c, err := Dial(testContext(t), s.addr, identity.Trust{}, nil, cfg, h)
	if err == nil {
		t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	}
	return c, err
}

// connectLocal starts a server and dials it, both with the default Config;
// the start of most local tests, which only fail if it does.
func connectLocal(t *testing.T, start func(*testing.T, Config) *localServer) (*localServer, *Conn) {
	t.Helper()
	s := start(t, NewConfig())
	c, err := dialLocal(t, s, NewConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// openTransfer opens a one-way transfer to the test endpoint.
func openTransfer(t *testing.T, c *Conn) *OutStream {
	t.Helper()
	out, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLocalNegotiation: HELLO is mandatory on local transports too; an
// empty intersection fails negotiation on both sides, and datagram flows
// are agreed only where both sides turned them on (local_flow_test.go).
func TestLocalNegotiation(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		if a := c.Agreed(); a.Guarantees != wire.CoreGuarantees() || a.Datagrams {
			t.Fatalf("agreed %+v, want core without datagrams (off by default)", a)
		}
		cfg := NewConfig()
		cfg.Offered.Ordering, cfg.Required.Ordering = 1, 1
		if _, err := dialLocal(t, s, cfg, newRecorder()); !errors.Is(err, errs.ErrNegotiation) {
			t.Fatalf("dial requiring ordering: %v, want Negotiation", err)
		}
	})
}

// TestLocalExchangeAndTransfer: an exchange answers on its own stream; a
// one-way transfer reaches the handler with its header and payload; the
// receipt resolves once the FIN is in the peer's buffer.
func TestLocalExchangeAndTransfer(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		s.h.answers.Store(true)
		out, reply, err := c.OpenBi(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		r, err := out.Finish()
		if err != nil || r.Err() != nil {
			t.Fatalf("finish %v, receipt %v", err, r.Err())
		}
		ex := <-s.h.exchanges
		if got, err := io.ReadAll(ex.In); err != nil || string(got) != "ping" {
			t.Fatalf("request %q, %v", got, err)
		}
		rout, err := ex.Reply(&wire.Data{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rout.Write([]byte("pong")); err != nil {
			t.Fatal(err)
		}
		if _, err := rout.Finish(); err != nil {
			t.Fatal(err)
		}
		in, err := reply.Recv(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(in); err != nil || string(got) != "pong" {
			t.Fatalf("reply %q, %v", got, err)
		}

		s.h.answers.Store(false)
		uni, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t"), ContentType: wire.Some("text/plain")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := uni.Write([]byte("one way")); err != nil {
			t.Fatal(err)
		}
		if _, err := uni.Finish(); err != nil {
			t.Fatal(err)
		}
		d := <-s.h.data
		if got, err := io.ReadAll(d); err != nil || string(got) != "one way" || d.Header.ContentType.V != "text/plain" {
			t.Fatalf("transfer %q (%q), %v", got, d.Header.ContentType.V, err)
		}
	})
}

// TestLocalCancelIsNeverAComplete: a transfer the sender cancels mid-way
// is read as Canceled, never as a complete payload.
func TestLocalCancelIsNeverAComplete(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		out := openTransfer(t, c)
		if _, err := out.Write([]byte("half")); err != nil {
			t.Fatal(err)
		}
		in := <-s.h.data
		if _, err := io.ReadFull(in, make([]byte, 4)); err != nil {
			t.Fatal(err)
		}
		out.Cancel()
		if _, err := io.ReadAll(in); !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("read of a canceled transfer: %v, want Canceled", err)
		}
	})
}

// TestLocalStreamCap: a side holds at most MaxLocalStreams live streams,
// its parked reverse connections counted (a unix dialling side parks
// MaxParkedReverse); the next open waits until one completes.
func TestLocalStreamCap(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		streams := MaxLocalStreams
		if ul, ok := c.local.(*unixLink); ok {
			waitFor(t, "every reverse connection to be parked", func() bool { return ul.slots.parkedNow() == MaxParkedReverse })
			streams -= MaxParkedReverse
		}
		for i := range streams {
			out, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")})
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			if _, err := out.Finish(); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(testContext(t), 100*time.Millisecond)
		defer cancel()
		// Bounded wait: nothing can signal that an open keeps waiting.
		if _, err := c.OpenUni(ctx, &wire.Data{Endpoint: wire.Some("/t")}); !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("open at the cap: %v, want it to wait until ctx ends", err)
		}
		in := <-s.h.data
		if _, err := io.ReadAll(in); err != nil {
			t.Fatal(err)
		}
		if _, err := c.OpenUni(testContext(t), &wire.Data{Endpoint: wire.Some("/t")}); err != nil {
			t.Fatalf("open after one stream completed: %v", err)
		}
		// Take the rest, so no handler is left blocked on the recorder.
		for range streams - 1 {
			_, _ = io.ReadAll(<-s.h.data)
		}
	})
}

// TestLocalHelloOutsideControlIsAViolation: HELLO belongs to the control
// stream only; on any other stream the connection closes.
func TestLocalHelloOutsideControlIsAViolation(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		// The open itself may succeed or see the close, whichever comes first.
		_, _ = c.OpenControl(testContext(t), wire.KindHello, &wire.Hello{})
		select {
		case err := <-s.h.closed:
			if !errors.Is(err, errs.ErrProtocol) {
				t.Fatalf("server side ended with %v, want Protocol", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a HELLO outside the control stream did not close the connection")
		}
	})
}

// TestLocalCancelUnblocksAWrite: Cancel from another goroutine ends a
// write blocked on a reader that does not read, with Canceled, and the
// reader sees a reset, never a complete payload.
func TestLocalCancelUnblocksAWrite(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		out := openTransfer(t, c)
		wrote := make(chan error, 1)
		go func() {
			// Far beyond the window and any socket buffer: it blocks.
			_, err := out.Write(make([]byte, 64<<20))
			wrote <- err
		}()
		in := <-s.h.data
		if _, err := io.ReadFull(in, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		out.Cancel()
		if err := <-wrote; !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("blocked write after Cancel: %v, want Canceled", err)
		}
		if _, err := io.ReadAll(in); !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("read of the canceled transfer: %v, want Canceled", err)
		}
	})
}

// A cancel that comes once a local transfer's FIN is queued, while Finish
// is still returning, leaves the transfer whole, as Finish reports: a
// sender's context ending just then must not take back what went out.
// (An inproc pipe still reset a transfer whose reader had not yet seen
// the FIN.)
func TestALocalCancelOnceTheFINIsQueuedLeavesTheTransferWhole(t *testing.T) {
	forEachLocal(t, func(t *testing.T, start func(*testing.T, Config) *localServer) {
		s, c := connectLocal(t, start)
		out := openTransfer(t, c)
		if _, err := out.Write([]byte("whole")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(faults.Set(&faults.LocalFINQueued, out.CancelUnfinished))
		if _, err := out.Finish(); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		select {
		case in := <-s.h.data:
			if got, err := io.ReadAll(in); err != nil || string(got) != "whole" {
				t.Fatalf("read %q, %v; want the whole transfer, as Finish returned nil", got, err)
			}
		case <-testContext(t).Done():
			t.Fatal("Finish returned nil but the transfer never reached the handler")
		}
	})
}
