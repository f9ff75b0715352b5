package security

import (
	"context"
	"errors"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/udpproxy"
)

// refusedClient is a binding that judges client keys and a client it
// must refuse.
type refusedClient struct {
	name     string
	bind     weida.BindOption
	attacker *weida.Identity // nil: anonymous
}

// refusedClients are the clients a binding that judges keys must refuse,
// and the key it trusts.
func refusedClients(t *testing.T) (trusted *weida.Identity, cases []refusedClient) {
	trusted, stranger := newIdentity(t), newIdentity(t)
	pin, err := weida.TrustPin(trusted.Fingerprint().String())
	if err != nil {
		t.Fatal(err)
	}
	return trusted, []refusedClient{
		{"pinned binding, untrusted key", weida.RequireClient(pin), stranger},
		{"pinned binding, anonymous", weida.RequireClient(pin), nil},
		{"any-key binding, anonymous", weida.RequireAnyClientKey(), nil},
	}
}

// TestUnprovedClientsDispatchNothing: against a binding that pins one
// client key, and one that requires any key, a raw client that presents
// the wrong key or none fires HELLO, a one-way DATA and an exchange as soon
// as its side of the handshake completes. The server refuses the handshake
// (a TLS alert) and nothing of what was sent is dispatched: the first
// thing the acceptor ever sees is the trusted client's transfer.
func TestUnprovedClientsDispatchNothing(t *testing.T) {
	trusted, cases := refusedClients(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.bind)
			url := s.b.URL(inPath)
			fired := 0
			for range 5 {
				if attack(t, url, tc.attacker) {
					fired++
				}
			}
			if fired == 0 {
				t.Fatal("no attack got past its own side of the handshake: nothing was tested")
			}
			if err := send(t, url, trusted, "trusted"); err != nil {
				t.Fatalf("the trusted client: %v", err)
			}
			fp, ok, payload := s.firstArrival(t)
			if payload != "trusted" || !ok || fp != trusted.Fingerprint() {
				t.Fatalf("the first dispatched transfer is %q from %v (proved %v): something an unproved client sent got through",
					payload, fp, ok)
			}
		})
	}
}

// TestRefusedClientIsToldTls: weida's own client, refused by a binding for
// its key or for having none, fails Connect with Tls (SEMANTICS.md §6.3
// "other handshake failure", §8.1 "anonymous clients fail the handshake
// (Tls)"), not with a lost connection: the server's TLS alert is the
// verdict, and it arrives after the client's half of the handshake is done.
func TestRefusedClientIsToldTls(t *testing.T) {
	_, cases := refusedClients(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.bind)
			if err := send(t, s.b.URL(inPath), tc.attacker, "refused"); !errors.Is(err, weida.ErrTLS) {
				t.Fatalf("connect: %v, want Tls", err)
			}
		})
	}
}

// attack dials url presenting id (nil: none) and sends a HELLO, a one-way
// DATA and an exchange at once, then waits for the server's verdict, which
// must be the TLS refusal. It reports whether the streams went out (the
// client's half of the handshake completed before the server's verdict).
func attack(t *testing.T, url string, id *weida.Identity) (fired bool) {
	t.Helper()
	c, err := rawpeer.Dial(ctxFor(t), url, id)
	if err != nil {
		return false // refused within the dial: nothing could be sent
	}
	defer c.Close()
	fired = c.Uni(rawpeer.Hello()) == nil
	fired = c.Uni(rawpeer.Data(inPath, []byte("unproved one-way"))) == nil && fired
	_, err = c.Bidi(rawpeer.Data(inPath, []byte("unproved exchange")), true)
	fired = err == nil && fired
	select {
	case <-c.QC.Context().Done():
	case <-ctxFor(t).Done():
		t.Fatal("the server never refused an unproved client")
	}
	if !handshakeRefused(c) {
		t.Fatalf("the unproved connection ended with %v, want a TLS alert", context.Cause(c.QC.Context()))
	}
	return fired
}

// TestWrongServerKeySendsNothing: a client dialling an address that names
// another key stops at the handshake with Untrusted naming the key that
// answered, so nothing is dispatched at the server; a client with neither a
// fingerprint nor any trust fails Tls before a single packet leaves.
func TestWrongServerKeySendsNothing(t *testing.T) {
	s := startServer(t)
	addr, err := weida.ParseAddress(s.b.URL(inPath))
	if err != nil {
		t.Fatal(err)
	}
	wrong := addr
	wrong.Fingerprint = newIdentity(t).Fingerprint()
	err = send(t, wrong.String(), nil, "to the wrong key")
	if !errors.Is(err, weida.ErrUntrusted) || !strings.Contains(err.Error(), s.b.Fingerprint().String()) {
		t.Fatalf("dial naming another key: %v, want Untrusted naming %s", err, s.b.Fingerprint())
	}

	local, err := udpAddr(s.b.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := udpproxy.New(local, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	plain := addr
	plain.HasFingerprint, plain.Fingerprint = false, weida.Fingerprint{}
	plain.Host, plain.Port = proxy.Addr().IP.String(), uint16(proxy.Addr().Port)
	if err := send(t, plain.String(), nil, "to whoever answers"); !errors.Is(err, weida.ErrTLS) {
		t.Fatalf("dial without fingerprint or trust: %v, want Tls", err)
	}
	if n := proxy.Stats(udpproxy.ToServer).Received; n != 0 {
		t.Fatalf("%d packets left for a server the client could not verify", n)
	}

	if err := send(t, s.b.URL(inPath), nil, "right key"); err != nil {
		t.Fatal(err)
	}
	if _, _, payload := s.firstArrival(t); payload != "right key" {
		t.Fatalf("the first dispatched transfer is %q", payload)
	}
}
