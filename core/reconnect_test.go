package weida_test

import (
	"context"
	"errors"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// restartable is a server that can go away and come back on the same port.
type restartable struct {
	t    *testing.T
	addr string
	rt   *weida.Runtime
	b    *weida.Binding
	a    *weida.Acceptor
}

func startAt(t *testing.T, addr string, id *weida.Identity) *restartable {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	a, err := rt.Listener().Acceptor("/r")
	if err != nil {
		t.Fatal(err)
	}
	return &restartable{t: t, addr: b.LocalAddr(), rt: rt, b: b, a: a}
}

// nextEvent returns the next event of kind k, skipping others.
func nextEvent(t *testing.T, ev *weida.PeerEvents, k weida.PeerEventKind) weida.PeerEvent {
	t.Helper()
	for {
		e, err := ev.Next(ctxFor(t))
		if err != nil {
			t.Fatalf("waiting for %s: %v", k, err)
		}
		if e.Kind == k {
			return e
		}
	}
}

func fastRedial() weida.EndpointOption {
	return weida.WithReconnect(weida.ReconnectPolicy{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond})
}

func TestRedialSameKey(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	srv := startAt(t, "127.0.0.1:0", id)
	url := srv.b.URL("/r")
	p := testRuntime(t).Peer(weida.TrustByAddress(), fastRedial())
	events := p.Events()
	if err := p.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)

	srv.rt.Shutdown()
	lost := nextEvent(t, events, weida.EventLost)
	if lost.URL != url {
		t.Fatalf("lost %q", lost.URL)
	}
	nextEvent(t, events, weida.EventRetrying)

	// Open waits for the redial instead of failing.
	opened := make(chan error, 1)
	go func() {
		out, err := p.Open(ctxFor(t), weida.TransferMeta{})
		if err == nil {
			_, _ = out.Write([]byte("after restart"))
			_, err = out.Finish()
		}
		opened <- err
	}()
	srv2 := startAt(t, srv.addr, id)
	if e := nextEvent(t, events, weida.EventConnected); e.Fingerprint != id.Fingerprint() {
		t.Fatalf("reconnected to %s", e.Fingerprint)
	}
	if err := <-opened; err != nil {
		t.Fatalf("open across the restart: %v", err)
	}
	in, err := srv2.a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := in.(*weida.IncomingTransfer).Collect(64); string(got) != "after restart" {
		t.Fatalf("got %q", got)
	}
}

func TestRedialNewKeyIsPeerChanged(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	srv := startAt(t, "127.0.0.1:0", id)
	// A plain address trusted by pin: only the redial's key pinning can
	// notice the new key.
	pin, _ := weida.TrustPin(id.Fingerprint().String())
	p := testRuntime(t).Peer(pin, fastRedial())
	events := p.Events()
	if err := p.Connect(ctxFor(t), "weida://"+srv.addr+"/r"); err != nil {
		t.Fatal(err)
	}
	srv.rt.Shutdown()
	other, _ := weida.GenerateIdentity()
	startAt(t, srv.addr, other)
	gave := nextEvent(t, events, weida.EventGaveUp)
	if !gave.PeerChanged {
		t.Fatalf("gave up without PeerChanged: %+v", gave)
	}
	_, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if !errors.Is(err, weida.ErrConnectionLost) {
		t.Fatalf("open after PeerChanged: %v, want ConnectionLost", err)
	}
}

func TestNeverReconnectGivesUp(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	srv := startAt(t, "127.0.0.1:0", id)
	p := testRuntime(t).Peer(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	events := p.Events()
	if err := p.Connect(ctxFor(t), srv.b.URL("/r")); err != nil {
		t.Fatal(err)
	}
	srv.rt.Shutdown()
	nextEvent(t, events, weida.EventGaveUp)
	if _, err := p.Open(ctxFor(t), weida.TransferMeta{}); !errors.Is(err, weida.ErrConnectionLost) {
		t.Fatalf("open: %v, want ConnectionLost", err)
	}
}

func TestSendTimeoutIsExpiredWithTheLossCause(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	srv := startAt(t, "127.0.0.1:0", id)
	rt, err := weida.NewRuntime(weida.Config{SendTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	p := rt.Peer(weida.TrustByAddress(), fastRedial())
	events := p.Events()
	if err := p.Connect(ctxFor(t), srv.b.URL("/r")); err != nil {
		t.Fatal(err)
	}
	srv.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)
	_, err = p.Open(context.Background(), weida.TransferMeta{})
	var e *weida.Error
	if !errors.As(err, &e) || e.Kind != weida.KindExpired || e.Cause != weida.CausePeerClosed {
		t.Fatalf("open with every slot down: %v, want Expired(PeerClosed)", err)
	}
}
