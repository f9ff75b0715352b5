package weida_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// echoHandler answers an exchange with its request and reports the body of a
// one-way transfer on transfers.
func echoHandler(t *testing.T, transfers chan<- []byte) func(weida.Incoming) {
	return func(item weida.Incoming) {
		switch it := item.(type) {
		case *weida.IncomingExchange:
			body, err := it.Request().Collect(1 << 10)
			if err != nil {
				t.Errorf("reading a request: %v", err)
				_ = it.Close()
				return
			}
			out, err := it.Reply(weida.TransferMeta{})
			if err == nil {
				_, err = out.Write(body)
			}
			if err == nil {
				_, err = out.Finish()
			}
			if err != nil {
				t.Errorf("replying: %v", err)
			}
		case *weida.IncomingTransfer:
			body, err := it.Collect(1 << 10)
			if err != nil {
				t.Errorf("reading a transfer: %v", err)
			}
			transfers <- body
		default:
			t.Errorf("served a %T", item)
		}
	}
}

func TestAcceptorServeHandlesExchangesAndTransfers(t *testing.T) {
	_, b, a := serve(t, "/serve")
	p := connect(t, b.URL("/serve"))
	transfers := make(chan []byte, 1)
	ctx, stop := context.WithCancel(ctxFor(t))
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, echoHandler(t, transfers)) }()

	for _, req := range [][]byte{[]byte("one"), {}, bytes.Repeat([]byte{7}, 1000)} {
		got, err := exchange(t, p, req)
		if err != nil || !bytes.Equal(got, req) {
			t.Fatalf("exchange of %d bytes = %q, %v; want the request echoed", len(req), got, err)
		}
	}
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("push"))
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := <-transfers; string(got) != "push" {
		t.Fatalf("transfer = %q, want %q", got, "push")
	}
	stop()
	if err := <-served; !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("Serve after its context ended = %v, want Canceled", err)
	}
}

func TestAcceptorServeEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(a *weida.Acceptor, stop context.CancelFunc)
	}{
		{"context ended", func(_ *weida.Acceptor, stop context.CancelFunc) { stop() }},
		{"acceptor closed", func(a *weida.Acceptor, _ context.CancelFunc) { _ = a.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, a := serve(t, "/serve")
			ctx, stop := context.WithCancel(ctxFor(t))
			defer stop()
			served := make(chan error, 1)
			go func() { served <- a.Serve(ctx, func(weida.Incoming) {}) }()
			tt.end(a, stop)
			if err := <-served; !errors.Is(err, weida.ErrCanceled) {
				t.Fatalf("Serve = %v, want Canceled", err)
			}
		})
	}
}

func TestAcceptorServeRunsOnce(t *testing.T) {
	_, b, a := serve(t, "/serve")
	p := connect(t, b.URL("/serve"))
	ctx, stop := context.WithCancel(ctxFor(t))
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, echoHandler(t, nil)) }()
	// A completed exchange proves the first Serve is running.
	if _, err := exchange(t, p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := a.Serve(ctxFor(t), func(weida.Incoming) {}); !errors.Is(err, weida.ErrRuntime) {
		t.Fatalf("a second Serve = %v, want Runtime", err)
	}
	stop()
	if err := <-served; !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("the first Serve = %v, want Canceled", err)
	}
}
