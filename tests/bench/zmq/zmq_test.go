package zmq

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// pair binds a socket of type server and connects one of type client to it.
func pair(t *testing.T, ctx *Context, server, client Type) (*Socket, *Socket) {
	t.Helper()
	s, err := ctx.Socket(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Bind("tcp://127.0.0.1:*"); err != nil {
		t.Fatal(err)
	}
	endpoint, err := s.LastEndpoint()
	if err != nil || !strings.HasPrefix(endpoint, "tcp://127.0.0.1:") {
		t.Fatalf("LastEndpoint = %q, %v; want a tcp loopback endpoint", endpoint, err)
	}
	c, err := ctx.Socket(client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Connect(endpoint); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func newContext(t *testing.T) *Context {
	t.Helper()
	ctx, err := NewContext()
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-in first-out: the sockets close before Term.
	t.Cleanup(func() {
		if err := ctx.Term(); err != nil {
			t.Error(err)
		}
	})
	return ctx
}

func TestRequestReply(t *testing.T) {
	ctx := newContext(t)
	rep, req := pair(t, ctx, Rep, Req)
	tests := []struct {
		name string
		msg  []byte
	}{
		{"empty", nil},
		{"small", []byte("ping")},
		{"one MiB", bytes.Repeat([]byte{7}, 1<<20)},
	}
	buf := make([]byte, 1<<20+1)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := req.Send(tt.msg, 0); err != nil {
				t.Fatal(err)
			}
			n, err := rep.Recv(buf, 0)
			if err != nil || !bytes.Equal(buf[:n], tt.msg) {
				t.Fatalf("Recv = %d bytes, %v; want the %d sent", n, err, len(tt.msg))
			}
			if err := rep.Send(buf[:n], 0); err != nil {
				t.Fatal(err)
			}
			if n, err := req.Recv(buf, 0); err != nil || n != len(tt.msg) {
				t.Fatalf("reply = %d bytes, %v; want %d", n, err, len(tt.msg))
			}
		})
	}
}

func TestRecvRefusesAMessageLongerThanTheBuffer(t *testing.T) {
	ctx := newContext(t)
	pull, push := pair(t, ctx, Pull, Push)
	if err := push.Send([]byte("12345"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := pull.Recv(make([]byte, 5), 0); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("Recv error = %v, want one saying the message does not fit", err)
	}
}

func TestDontWaitIsErrAgain(t *testing.T) {
	ctx := newContext(t)
	pull, _ := pair(t, ctx, Pull, Push)
	if _, err := pull.Recv(make([]byte, 8), DontWait); !errors.Is(err, ErrAgain) {
		t.Fatalf("Recv error = %v, want ErrAgain", err)
	}
}

func TestPollerReportsTheReadySocket(t *testing.T) {
	ctx := newContext(t)
	pub, sub := pair(t, ctx, Pub, Sub)
	_, quiet := pair(t, ctx, Pub, Sub)
	for _, s := range []*Socket{sub, quiet} {
		if err := s.Subscribe(""); err != nil {
			t.Fatal(err)
		}
	}
	poller := NewPoller([]*Socket{quiet, sub})
	// A subscription reaches the publisher some time after Connect (the
	// "slow joiner"): publish until the subscriber has one.
	var ready []int
	for deadline := time.Now().Add(10 * time.Second); len(ready) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no message reached the subscriber within 10 s")
		}
		if err := pub.Send([]byte("tick"), 0); err != nil {
			t.Fatal(err)
		}
		var err error
		if ready, err = poller.Wait(10*time.Millisecond, ready); err != nil {
			t.Fatal(err)
		}
	}
	if len(ready) != 1 || ready[0] != 1 {
		t.Fatalf("ready = %v, want [1] (only the connected subscriber)", ready)
	}
}

func TestShutdownUnblocksRecv(t *testing.T) {
	ctx := newContext(t)
	pull, _ := pair(t, ctx, Pull, Push)
	got := make(chan error, 1)
	go func() {
		_, err := pull.Recv(make([]byte, 8), 0)
		got <- err
	}()
	ctx.Shutdown()
	if err := <-got; !errors.Is(err, ErrTerminated) {
		t.Fatalf("Recv error = %v, want ErrTerminated", err)
	}
}

func TestVersion(t *testing.T) {
	if v := Version(); !strings.HasPrefix(v, "4.") {
		t.Fatalf("Version = %q, want a libzmq 4.x", v)
	}
}
