package weida_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testRuntime starts a runtime with the default configuration, shut down
// when the test ends.
func testRuntime(t *testing.T) *weida.Runtime { return runtimeWith(t, weida.Config{}) }

// runtimeWith starts a runtime under cfg, shut down when the test ends.
func runtimeWith(t testing.TB, cfg weida.Config) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatalf("runtime for %+v: %v", cfg, err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

// bindLoopback binds rt on 127.0.0.1 (a kernel-chosen port) with a fresh identity.
func bindLoopback(t testing.TB, rt *weida.Runtime, opts ...weida.BindOption) *weida.Binding {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve binds a fresh identity on loopback with an acceptor at path.
func serve(t *testing.T, path string, opts ...weida.BindOption) (*weida.Runtime, *weida.Binding, *weida.Acceptor) {
	t.Helper()
	rt := testRuntime(t)
	b := bindLoopback(t, rt, opts...)
	a, err := rt.Listener().Acceptor(path)
	if err != nil {
		t.Fatal(err)
	}
	return rt, b, a
}

func connect(t *testing.T, url string, opts ...weida.EndpointOption) *weida.Peer {
	t.Helper()
	p := testRuntime(t).Peer(weida.TrustByAddress(), opts...)
	if err := p.Connect(ctxFor(t), url); err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	return p
}

// exchange sends req and returns the reply payload or the error.
func exchange(t *testing.T, p *weida.Peer, req []byte) ([]byte, error) {
	t.Helper()
	out, reply, err := p.OpenBi(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		return nil, err
	}
	if _, err := out.Write(req); err != nil {
		return nil, err
	}
	if _, err := out.Finish(); err != nil {
		return nil, err
	}
	in, err := reply.Recv(ctxFor(t))
	if err != nil {
		return nil, err
	}
	return in.Collect(64 << 20)
}

func TestOneAcceptorTakesTransfersAndExchanges(t *testing.T) {
	_, b, a := serve(t, "/raw")
	p := connect(t, b.URL("/raw"))

	out, err := p.Open(ctxFor(t), weida.TransferMeta{ContentType: "text/plain", ContentLen: 3, HasContentLen: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("one"))
	d, err := out.Finish()
	if err != nil {
		t.Fatal(err)
	}
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := in.(*weida.IncomingTransfer)
	if !ok {
		t.Fatalf("accepted %T, want a one-way transfer", in)
	}
	m := tr.Meta()
	if ep, _ := m.Endpoint(); ep != "/raw" {
		t.Fatalf("endpoint %q", ep)
	}
	if ct, _ := m.ContentType(); ct != "text/plain" {
		t.Fatalf("content type %q", ct)
	}
	if n, ok := m.ContentLen(); !ok || n != 3 {
		t.Fatalf("content_len %d %v", n, ok)
	}
	if _, ok := m.Peer(); ok {
		t.Fatal("an anonymous client has no proved peer")
	}
	if got, err := tr.Collect(16); err != nil || string(got) != "one" {
		t.Fatalf("collect %q, %v", got, err)
	}
	if err := d.Delivered(ctxFor(t)); err != nil {
		t.Fatalf("delivered: %v", err)
	}

	go func() {
		in, err := a.Accept(ctxFor(t))
		if err != nil {
			return
		}
		ex := in.(*weida.IncomingExchange)
		body, _ := ex.Request().Collect(1 << 20)
		w, err := ex.Reply(weida.TransferMeta{})
		if err != nil {
			return
		}
		_, _ = w.Write(bytes.ToUpper(body))
		_, _ = w.Finish()
	}()
	if got, err := exchange(t, p, []byte("two")); err != nil || string(got) != "TWO" {
		t.Fatalf("exchange %q, %v", got, err)
	}
}

func TestRegistrationErrors(t *testing.T) {
	rt := testRuntime(t)
	if _, err := rt.Listener().Acceptor("/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Listener().Acceptor("/a"); !errors.Is(err, weida.ErrAlreadyRegistered) {
		t.Fatalf("second registration: %v", err)
	}
	for _, bad := range []string{"", "a", "/\x01", "/" + strings.Repeat("x", 512)} {
		if _, err := rt.Listener().Acceptor(bad); !errors.Is(err, weida.ErrInvalidEndpointPath) {
			t.Fatalf("path %q: %v, want InvalidEndpointPath", bad, err)
		}
	}
}

func TestCollectAboveTheCeilingRefusesAndTheSenderSeesIt(t *testing.T) {
	_, b, a := serve(t, "/cap")
	p := connect(t, b.URL("/cap"))
	result := make(chan error, 1)
	go func() {
		in, err := a.Accept(ctxFor(t))
		if err != nil {
			result <- err
			return
		}
		_, err = in.(*weida.IncomingTransfer).Collect(1 << 20)
		result <- err
	}()
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, werr := out.Write(make([]byte, 4<<20))
	if werr == nil {
		d, ferr := out.Finish()
		werr = ferr
		if ferr == nil {
			werr = d.Delivered(ctxFor(t))
		}
	}
	if !errors.Is(werr, weida.ErrRejected) {
		t.Fatalf("sender: %v, want Rejected", werr)
	}
	if err := <-result; !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("receiver: %v, want LimitExceeded", err)
	}
}

func TestExchangeOutcomes(t *testing.T) {
	_, b, a := serve(t, "/x")
	p := connect(t, b.URL("/x"))
	answer := func(act func(*weida.IncomingExchange)) {
		go func() {
			in, err := a.Accept(ctxFor(t))
			if err == nil {
				act(in.(*weida.IncomingExchange))
			}
		}()
	}

	answer(func(ex *weida.IncomingExchange) { _ = ex.Close() })
	if _, err := exchange(t, p, []byte("q")); !errors.Is(err, weida.ErrNoReply) {
		t.Fatalf("dropped unanswered: %v, want NoReply", err)
	}
	answer(func(ex *weida.IncomingExchange) { _ = ex.Refuse() })
	if _, err := exchange(t, p, []byte("q")); !errors.Is(err, weida.ErrRejected) {
		t.Fatalf("refused: %v, want Rejected", err)
	}
	second := make(chan error, 1)
	answer(func(ex *weida.IncomingExchange) {
		w, _ := ex.Reply(weida.TransferMeta{})
		_, _ = w.Finish()
		_, err := ex.Reply(weida.TransferMeta{})
		second <- err
	})
	if got, err := exchange(t, p, []byte("q")); err != nil || len(got) != 0 {
		t.Fatalf("empty reply: %q, %v", got, err)
	}
	if err := <-second; !errors.Is(err, weida.ErrNoReply) {
		t.Fatalf("second reply: %v, want NoReply", err)
	}

	unknown := connect(t, b.URL("/nowhere"))
	if _, err := exchange(t, unknown, []byte("q")); !errors.Is(err, weida.ErrUnknownEndpoint) {
		t.Fatalf("unknown path: %v, want UnknownEndpoint", err)
	}
}

func TestLossAfterFinishIsIndeterminate(t *testing.T) {
	srv, b, a := serve(t, "/slow")
	p := connect(t, b.URL("/slow"))
	accepted := make(chan struct{})
	go func() {
		in, err := a.Accept(ctxFor(t))
		if err == nil {
			_, _ = in.(*weida.IncomingExchange).Request().Collect(1 << 20)
			close(accepted)
		}
	}()
	out, reply, err := p.OpenBi(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("are you there?"))
	if _, err := out.Finish(); err != nil {
		t.Fatal(err)
	}
	<-accepted
	srv.Shutdown()
	_, err = reply.Recv(ctxFor(t))
	if !errors.Is(err, weida.ErrIndeterminate) || weida.IsDefiniteFailure(err) {
		t.Fatalf("reply after the server vanished: %v, want Indeterminate", err)
	}
}

func TestLossBeforeFinishIsConnectionLost(t *testing.T) {
	srv, b, a := serve(t, "/cut")
	p := connect(t, b.URL("/cut"))
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.Write([]byte("partial"))
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	_, _ = io.ReadFull(in.(*weida.IncomingTransfer), buf)
	srv.Shutdown()
	var werr error
	for werr == nil {
		_, werr = out.Write(make([]byte, 64<<10))
	}
	if !errors.Is(werr, weida.ErrConnectionLost) || !weida.IsDefiniteFailure(werr) {
		t.Fatalf("write after the server vanished: %v, want ConnectionLost", werr)
	}
}

func TestTrust(t *testing.T) {
	_, b, _ := serve(t, "/t")
	wrong := "weida://sha256:" + strings.Repeat("0", 64) + "@" + b.LocalAddr() + "/t"
	err := testRuntime(t).Peer(weida.TrustByAddress()).Connect(ctxFor(t), wrong)
	var untrusted *weida.UntrustedError
	if !errors.Is(err, weida.ErrUntrusted) || !errors.As(err, &untrusted) || untrusted.Presented != b.Fingerprint() {
		t.Fatalf("wrong key: %v, want Untrusted naming %s", err, b.Fingerprint())
	}
	plain := "weida://" + b.LocalAddr() + "/t"
	if err := testRuntime(t).Peer(weida.TrustByAddress()).Connect(ctxFor(t), plain); !errors.Is(err, weida.ErrTLS) {
		t.Fatalf("plain address without trust: %v, want Tls before any packet", err)
	}
	pinned, err := weida.TrustPin(b.Fingerprint().String())
	if err != nil {
		t.Fatal(err)
	}
	if err := testRuntime(t).Peer(pinned).Connect(ctxFor(t), plain); err != nil {
		t.Fatalf("plain address with a pin: %v", err)
	}
}

func TestRequiredClientIdentity(t *testing.T) {
	client, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	trust, _ := weida.TrustPin(client.Fingerprint().String())
	_, b, a := serve(t, "/mtls", weida.RequireClient(trust))
	if err := testRuntime(t).Peer(weida.TrustByAddress()).Connect(ctxFor(t), b.URL("/mtls")); err == nil {
		t.Fatal("an anonymous client was admitted by a binding that requires identities")
	}
	p := connect(t, b.URL("/mtls"), weida.WithClientIdentity(client))
	out, _ := p.Open(ctxFor(t), weida.TransferMeta{})
	_, _ = out.Finish()
	in, err := a.Accept(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if fp, ok := in.(*weida.IncomingTransfer).Meta().Peer(); !ok || fp != client.Fingerprint() {
		t.Fatalf("peer %v %v, want the client's key", fp, ok)
	}
}

func TestNotConnected(t *testing.T) {
	p := testRuntime(t).Peer(weida.TrustByAddress())
	if _, err := p.Open(ctxFor(t), weida.TransferMeta{}); !errors.Is(err, weida.ErrNotConnected) {
		t.Fatalf("open without connect: %v, want NotConnected", err)
	}
}

func TestUnhonourableGuaranteesRefusedAtConfiguration(t *testing.T) {
	_, err := weida.NewRuntime(weida.Config{Guarantees: weida.GuaranteeSet{Delivery: guarantee.AtLeastOnce}})
	if err == nil || !strings.Contains(err.Error(), "delivery") {
		t.Fatalf("AtLeastOnce: %v, want a refusal naming delivery", err)
	}
}
