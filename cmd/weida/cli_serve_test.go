package main

// How serve stops: SIGTERM takes nothing new and lets the work in hand
// finish before the drain. The client side is the library, in this
// process, so the test can hold an exchange or a transfer open across the
// signal.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"syscall"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// stoppingLine is what a serve stopping with work in hand writes.
var stoppingLine = regexp.MustCompile(`^weida: stopping; waiting up to \d+s for 1 (request|transfer)\(s\) in hand$`)

func TestServeFinishesTheWorkInHandOnSIGTERM(t *testing.T) {
	t.Parallel()
	first, second := randomBytes(t, 64<<10), randomBytes(t, 64<<10)
	whole := append(append([]byte(nil), first...), second...)

	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		ctx := testContext(t)
		echo := startServe(t, "--echo", "weida://127.0.0.1:0/echo")
		requester := clientRuntime(t).Requester(weida.TrustByAddress())
		if err := requester.Connect(ctx, echo.addr); err != nil {
			t.Fatal(err)
		}
		out, replies, err := requester.Open(ctx, weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write(first); err != nil {
			t.Fatal(err)
		}
		// The first half coming back proves the echo holds the exchange.
		reply, err := replies.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		echoed := make([]byte, len(first))
		if _, err := io.ReadFull(reply, echoed); err != nil {
			t.Fatal(err)
		}
		signalAndAwaitStopping(t, echo)
		if _, err := out.Write(second); err != nil {
			t.Fatalf("writing the rest of the request after SIGTERM: %v", err)
		}
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(reply)
		if err != nil {
			t.Fatalf("reading the rest of the reply after SIGTERM: %v", err)
		}
		if got := append(echoed, rest...); !bytes.Equal(got, whole) {
			t.Errorf("the echo returned %d bytes, not the %d sent", len(got), len(whole))
		}
		expectCleanStop(t, echo, fmt.Sprintf("echoed bytes=%d", len(whole)))
	})

	t.Run("sink", func(t *testing.T) {
		t.Parallel()
		ctx := testContext(t)
		sink := startServe(t, "--sink", "weida://127.0.0.1:0/sink")
		pusher := connectedPusher(t, ctx, sink.addr)
		out, err := pusher.Open(ctx, weida.TransferMeta{})
		if err != nil {
			t.Fatal(err)
		}
		written := sink.readStdout(len(first))
		if _, err := out.Write(first); err != nil {
			t.Fatal(err)
		}
		// The first half on stdout proves the sink holds the transfer.
		if got := written.wait(t); !bytes.Equal(got, first) {
			t.Fatal("the sink wrote other bytes than the first half sent")
		}
		written = sink.readStdout(len(second))
		signalAndAwaitStopping(t, sink)
		if _, err := out.Write(second); err != nil {
			t.Fatalf("writing the rest of the transfer after SIGTERM: %v", err)
		}
		delivery, err := out.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if err := delivery.Delivered(ctx); err != nil {
			t.Fatal(err)
		}
		if got := written.wait(t); !bytes.Equal(got, second) {
			t.Error("the sink wrote other bytes than the second half sent")
		}
		expectCleanStop(t, sink, fmt.Sprintf("received bytes=%d", len(whole)))
	})
}

// signalAndAwaitStopping sends SIGTERM and waits for serve to say it is
// waiting for the work in hand.
func signalAndAwaitStopping(t *testing.T, p *proc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.expectMatch(t, stoppingLine)
}

// expectCleanStop waits for serve to exit 0 having reported want.
func expectCleanStop(t *testing.T, p *proc, want string) {
	t.Helper()
	p.expectLine(t, want)
	if code, _, stderr := p.wait(t); code != exitOK {
		t.Errorf("serve exited %d after finishing the work in hand, want 0; stderr:\n%s", code, stderr)
	}
}

// testContext ends with the test, bounded by commandTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	t.Cleanup(cancel)
	return ctx
}

// connectedPusher is a Pusher of a fresh client runtime, connected to addr.
func connectedPusher(t *testing.T, ctx context.Context, addr string) *weida.Pusher {
	t.Helper()
	pusher := clientRuntime(t).Pusher(weida.TrustByAddress())
	if err := pusher.Connect(ctx, addr); err != nil {
		t.Fatal(err)
	}
	return pusher
}

// clientRuntime is a library runtime that ends with the test.
func clientRuntime(t *testing.T) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}
