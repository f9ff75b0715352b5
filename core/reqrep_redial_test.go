package weida_test

import (
	"testing"

	weida "github.com/weida-go/weida/core"
)

// replierAt is a runtime allowing one live exchange per connection, bound
// at addr with id, with a replier at /r.
func replierAt(t *testing.T, addr string, id *weida.Identity) (*weida.Runtime, *weida.Binding, *weida.Replier) {
	t.Helper()
	rt := runtimeWith(t, weida.Config{Limits: weida.Limits{MaxConcurrentBidiStreams: 1}})
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.Replier("/r")
	if err != nil {
		t.Fatal(err)
	}
	return rt, b, rep
}

// A request whose open waits on a connection that then ends sent nothing:
// it waits for the redial and is answered there instead of failing
// ConnectionLost (as it did while the dead connection still looked live).
func TestRequestOpenOnAnEndingConnectionWaitsForTheRedial(t *testing.T) {
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	rt1, b1, rep1 := replierAt(t, "127.0.0.1:0", id)
	req := testRuntime(t).Requester(weida.TrustByAddress(), fastRedial())
	t.Cleanup(func() { _ = req.Close() })
	events := req.Events()
	if err := req.Connect(ctxFor(t), b1.URL("/r")); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)

	// The first request takes the connection's one exchange and is never
	// answered, so the second waits for stream credit inside its open.
	first := make(chan error, 1)
	go func() { _, err := req.Request(ctxFor(t), []byte("first"), 64); first <- err }()
	if _, err := rep1.Accept(ctxFor(t), 64); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() {
		reply, err := req.Request(ctxFor(t), []byte("second"), 64)
		if err == nil && string(reply) != "answered" {
			t.Errorf("the second reply is %q", reply)
		}
		second <- err
	}()

	rt1.Shutdown()
	if err := <-first; weida.KindOf(err) != weida.KindIndeterminate {
		t.Fatalf("the unanswered request ended with %v, want Indeterminate", err)
	}
	_, _, rep2 := replierAt(t, b1.LocalAddr(), id)
	answered := make(chan error, 1)
	go func() {
		got, err := rep2.Accept(ctxFor(t), 64)
		if err == nil && string(got.Payload()) != "second" {
			t.Errorf("the restarted replier got %q", got.Payload())
		}
		if err == nil {
			err = got.Reply(ctxFor(t), []byte("answered"))
		}
		answered <- err
	}()
	if err := <-second; err != nil {
		t.Fatalf("the request opened on the ending connection: %v", err)
	}
	if err := <-answered; err != nil {
		t.Fatalf("the restarted replier: %v", err)
	}
}
