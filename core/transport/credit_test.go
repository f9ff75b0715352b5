package transport

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/wire"
)

// TestAwaitPeerConsumed: the receipt resolves when the peer's transport
// holds the bytes; AwaitPeerConsumed waits until its application read them.
func TestAwaitPeerConsumed(t *testing.T) {
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	out, err := c.OpenUni(testContext(t), &h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("read me before you close"))
	r, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("receipt: %v", err)
	}
	in := <-s.h.data // dispatched, not read yet
	// Bounded negative check: only time can show the wait does not end early.
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := c.AwaitPeerConsumed(short); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("before the peer read: %v, want a wait that outlived the context", err)
	}
	if _, err := io.ReadAll(in); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitPeerConsumed(testContext(t)); err != nil {
		t.Fatalf("after the peer read everything: %v", err)
	}
}
