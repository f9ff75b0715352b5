package transport

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// A reply awaited under a context that ends is abandoned: Recv returns
// Canceled, and the responder's reply half learns it (STOP_SENDING
// CANCELED). Twice under one context, so the second wait runs under the
// registration the connection kept from the first.
func TestReplyRecvAbandonedWhenItsContextEnds(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	for i := range 3 {
		out, reply, err := c.OpenBi(ctx, &h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.Write([]byte("ask")); err != nil {
			t.Fatal(err)
		}
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		ex := <-s.h.exchanges
		if _, err := io.ReadAll(ex.In); err != nil {
			t.Fatal(err)
		}
		if i < 2 { // answered: the wait leaves before the context ends
			o, err := ex.Reply(&wire.Data{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.Finish(); err != nil {
				t.Fatal(err)
			}
			if _, err := reply.Recv(ctx); err != nil {
				t.Fatalf("answered exchange %d: %v", i, err)
			}
			continue
		}
		got := make(chan error, 1)
		go func() {
			_, err := reply.Recv(ctx)
			got <- err
		}()
		o, err := ex.Reply(&wire.Data{})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-got; !errors.Is(err, errs.ErrCanceled) {
			t.Fatalf("Recv after its context ended: %v, want Canceled", err)
		}
		// The reply's writer learns the stop: its writes fail once it
		// arrives (the receipt of a finish would resolve as a refusal).
		for err == nil {
			_, err = o.Write(make([]byte, 16<<10))
		}
		if errs.KindOf(err) != errs.KindCanceled {
			t.Fatalf("the reply writer after the stop: %v, want Canceled", err)
		}
	}
}
