package transport

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// TestStreamBudgetWaits: at the peer's bidi budget the next open waits (it
// never errors for the budget) and proceeds once an exchange completes.
func TestStreamBudgetWaits(t *testing.T) {
	cfg := NewConfig()
	cfg.Limits.MaxConcurrentBidiStreams = 2
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	h := wire.Data{Endpoint: wire.Some("/t")}
	var outs []*OutStream
	for range 2 {
		out, _, err := c.OpenBi(testContext(t), &h)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	// Bounded negative check: nothing but time can show that an open waits.
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := c.OpenBi(short, &h); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("third open at a budget of 2: %v, want it to wait until the context ended", err)
	}
	third := make(chan error, 1)
	go func() {
		_, _, err := c.OpenBi(testContext(t), &h)
		third <- err
	}()
	// Complete one exchange on both sides to free one stream (either may be
	// dispatched first, so both requests are finished).
	_, _ = outs[0].Finish()
	_, _ = outs[1].Finish()
	ex := <-s.h.exchanges
	_, _ = io.ReadAll(ex.In)
	ex.ReplyError(wire.ErrorNoReply)
	select {
	case err := <-third:
		if err != nil {
			t.Fatalf("third open after a stream was freed: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the third open never proceeded after a stream was freed")
	}
}

// TestMaxConnectionsPerPeer counts connections per proved client key.
func TestMaxConnectionsPerPeer(t *testing.T) {
	client, addr := onePerPeerServer(t)
	first, err := Dial(testContext(t), addr, identity.TrustByAddress(), client, NewConfig(), newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close(wire.CodeNoError, "")
	_, err = Dial(testContext(t), addr, identity.TrustByAddress(), client, NewConfig(), newRecorder())
	if !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("second connection of one key: %v, want LimitExceeded", err)
	}
	// Anonymous connections are not counted per peer.
	for range 2 {
		anon, err := Dial(testContext(t), addr, identity.TrustByAddress(), nil, NewConfig(), newRecorder())
		if err != nil {
			t.Fatalf("anonymous connection: %v", err)
		}
		defer anon.Close(wire.CodeNoError, "")
	}
}

// TestStreamChurn runs thousands of short one-way transfers through one
// connection with the default stream limits: quic-go has been seen closing
// busy connections under churn with other limits (spec README).
func TestStreamChurn(t *testing.T) {
	const n = 5000
	s := startServer(t, NewConfig())
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	var wg sync.WaitGroup
	wg.Add(1)
	got := 0
	go func() {
		defer wg.Done()
		for got < n {
			in := <-s.h.data
			if _, err := io.Copy(io.Discard, in); err != nil {
				return
			}
			got++
		}
	}()
	h := wire.Data{Endpoint: wire.Some("/t")}
	var last *Receipt
	for i := range n {
		out, err := c.OpenUni(testContext(t), &h)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if _, err := out.Write([]byte("churn")); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if last, err = out.Finish(); err != nil {
			t.Fatalf("finish %d: %v", i, err)
		}
	}
	wg.Wait()
	if got != n {
		t.Fatalf("received %d of %d", got, n)
	}
	if err := last.Err(); err != nil {
		t.Fatalf("last receipt: %v", err)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the connection did not survive the churn: %v", err)
	}
}

// TestHeaderOnlyStreamsReturnCredit: SUBSCRIBE/CREDIT streams are read to
// their FIN, so their stream credit comes back; with a budget of 4 uni
// streams, 50 control frames must all go through.
func TestHeaderOnlyStreamsReturnCredit(t *testing.T) {
	cfg := NewConfig()
	cfg.Limits.MaxConcurrentUniStreams = 4
	s := startServer(t, cfg)
	c, _ := dialServer(t, s, s.l.Addr(), NewConfig())
	for i := range 50 {
		sub := wire.Subscribe{Endpoint: "/t", Filter: "a"}
		if _, err := c.OpenControl(testContext(t), wire.KindSubscribe, &sub); err != nil {
			t.Fatalf("control frame %d: %v", i, err)
		}
	}
	if err := c.AwaitPeerConsumed(testContext(t)); err != nil {
		t.Fatalf("the peer did not complete the control streams: %v", err)
	}
}

// A connection's end releases its place under max_connections_per_peer
// (the listener keeps no goroutine per connection to do it: it runs when
// quic-go's connection ends). A dial refused while the release is under
// way is retried; one must be admitted before the test's deadline.
func TestAnEndedConnectionReleasesItsPlace(t *testing.T) {
	client, addr := onePerPeerServer(t)
	ctx := testContext(t)
	for i := range 3 {
		for {
			c, err := Dial(ctx, addr, identity.TrustByAddress(), client, NewConfig(), newRecorder())
			if errors.Is(err, errs.ErrLimitExceeded) && ctx.Err() == nil {
				continue // the previous connection's release has not run yet
			}
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			c.Close(wire.CodeNoError, "")
			break
		}
	}
}

// onePerPeerServer starts a server admitting one connection per client
// key and returns a client key and the server's address.
func onePerPeerServer(t *testing.T) (*identity.Identity, identity.Address) {
	t.Helper()
	cfg := NewConfig()
	cfg.MaxConnectionsPerPeer = 1
	s := startServer(t, cfg)
	client, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return client, s.address(s.l.Addr(), "/t")
}
