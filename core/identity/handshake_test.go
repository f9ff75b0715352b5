package identity

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// dialAddress builds a weida:// address for host, naming expected when it is not nil.
// Handshakes always reach the loopback listener; host only feeds SNI and name checks.
func dialAddress(t *testing.T, expected *Identity, host string) Address {
	t.Helper()
	authority := host
	if strings.Contains(host, ":") {
		authority = "[" + host + "]"
	}
	if expected != nil {
		authority = expected.Fingerprint().String() + "@" + authority
	}
	return mustParseAddress(t, "weida://"+authority+":7443/x")
}

func mustServerConfig(t *testing.T, id *Identity, auth ClientAuth, clientTrust Trust) *tls.Config {
	t.Helper()
	config, err := ServerConfig(id, auth, clientTrust, testALPN)
	if err != nil {
		t.Fatalf("ServerConfig: %v", err)
	}
	return config
}

func mustClientConfig(t *testing.T, addr Address, trust Trust, id *Identity) (*tls.Config, *Verification) {
	t.Helper()
	config, verification, err := ClientConfig(addr, trust, id, testALPN)
	if err != nil {
		t.Fatalf("ClientConfig: %v", err)
	}
	return config, verification
}

// TestServerVerification walks PROTOCOL.md §2.4 from the dialling side.
func TestServerVerification(t *testing.T) {
	ca := newTestCA(t)
	plain, stranger := mustGenerate(t), mustGenerate(t)
	named := mustGenerateFor(t, LoopbackNames()...)
	issued := ca.issue(t, certSpec{names: []string{"localhost", "127.0.0.1"}})
	expired := selfSigned(t, newP256Key(t), certSpec{
		names:     []string{"localhost"},
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)})
	issuedExpired := ca.issue(t, certSpec{names: []string{"localhost"},
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)})
	pinsAndAnchor := TrustPin(plain.Fingerprint()).AndAnchor(ca.cert)

	tests := []struct {
		name   string
		server *Identity
		addr   Address
		trust  Trust
		// refusedBecause is empty when the server must be accepted,
		// else a phrase the *UntrustedError must contain.
		refusedBecause string
	}{
		{"address fingerprint accepted", plain, dialAddress(t, plain, "h"), TrustByAddress(), ""},
		{"wrong address fingerprint", plain, dialAddress(t, stranger, "h"), TrustByAddress(), "the address names " + stranger.Fingerprint().String()},
		{"address fingerprint beats an anchor", issued, dialAddress(t, stranger, "localhost"), TrustAnchor(ca.cert), "the address names"},
		{"address fingerprint beats a pin", plain, dialAddress(t, stranger, "h"), TrustPin(plain.Fingerprint()), "the address names"},
		{"address fingerprint overrides a trust that would refuse", plain, dialAddress(t, plain, "h"), TrustPin(stranger.Fingerprint()), ""},
		{"pin accepted", plain, dialAddress(t, nil, "h"), TrustPin(plain.Fingerprint()), ""},
		{"pin ignores names", named, dialAddress(t, nil, "example.invalid"), TrustPin(named.Fingerprint()), ""},
		{"pin ignores dates", expired, dialAddress(t, nil, "localhost"), TrustPin(expired.Fingerprint()), ""},
		{"unpinned key", plain, dialAddress(t, nil, "h"), TrustPin(stranger.Fingerprint()), "not among the 1 pinned keys"},
		{"anchor with matching name", issued, dialAddress(t, nil, "localhost"), TrustAnchor(ca.cert), ""},
		{"anchor with matching IP", issued, dialAddress(t, nil, "127.0.0.1"), TrustAnchor(ca.cert), ""},
		{"anchor checks the name", issued, dialAddress(t, nil, "example.invalid"), TrustAnchor(ca.cert), "example.invalid"},
		{"anchor checks dates", issuedExpired, dialAddress(t, nil, "localhost"), TrustAnchor(ca.cert), "expired"},
		{"anchor refuses another issuer", named, dialAddress(t, nil, "localhost"), TrustAnchor(ca.cert), "the anchor check failed"},
		{"generated identity anchors itself", named, dialAddress(t, nil, "::1"), TrustAnchor(named.Leaf()), ""},
		{"composed trust accepts the pin", plain, dialAddress(t, nil, "localhost"), pinsAndAnchor, ""},
		{"composed trust accepts the anchor", issued, dialAddress(t, nil, "localhost"), pinsAndAnchor, ""},
		{"composed trust refuses the rest", stranger, dialAddress(t, nil, "localhost"), pinsAndAnchor, "not pinned"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clientConfig, verification := mustClientConfig(t, tc.addr, tc.trust, nil)
			res := runHandshake(t, clientConfig, mustServerConfig(t, tc.server, ClientAnonymousAllowed, TrustByAddress()))

			presented, ok := verification.Presented()
			if !ok || presented != tc.server.Fingerprint() {
				t.Fatalf("Verification.Presented() = %s, %v; want the server's %s", presented, ok, tc.server.Fingerprint())
			}
			if tc.refusedBecause == "" {
				if res.clientErr != nil || res.serverErr != nil || verification.Err() != nil {
					t.Fatalf("refused: client %v, server %v, verification %v", res.clientErr, res.serverErr, verification.Err())
				}
				if fp, _ := PeerFingerprint(res.clientState); fp != tc.server.Fingerprint() {
					t.Fatalf("connected to %s", fp)
				}
				return
			}
			var untrusted *UntrustedError
			if !errors.As(res.clientErr, &untrusted) {
				t.Fatalf("client error %v, want *UntrustedError", res.clientErr)
			}
			if untrusted.Presented != tc.server.Fingerprint() {
				t.Fatalf("the error names %s, but %s answered", untrusted.Presented, tc.server.Fingerprint())
			}
			wantPrefix := fmt.Sprintf("the peer presented %s, which is not trusted", tc.server.Fingerprint())
			if msg := untrusted.Error(); !strings.HasPrefix(msg, wantPrefix) || !strings.Contains(msg, tc.refusedBecause) {
				t.Fatalf("message %q, want %q… saying %q", msg, wantPrefix, tc.refusedBecause)
			}
			if verification.Err() != res.clientErr {
				t.Fatalf("Verification.Err() = %v, want the handshake's %v", verification.Err(), res.clientErr)
			}
			if res.serverErr == nil {
				t.Fatal("the server completed a handshake the client refused")
			}
		})
	}
}

func TestClientConfigRefusesLocally(t *testing.T) {
	_, _, err := ClientConfig(dialAddress(t, nil, "h"), TrustByAddress(), nil, testALPN)
	if errs.KindOf(err) != errs.KindTLS || !strings.Contains(err.Error(), "put the server's fingerprint in the URL") ||
		!strings.Contains(err.Error(), "weida://h:7443/x") {
		t.Fatalf("plain address with empty trust: %v, want Tls naming the address and the remedy", err)
	}
	unix := mustParseAddress(t, "weida+unix://%2Fs/x")
	if _, _, err := ClientConfig(unix, TrustPin(Fingerprint{}), nil, testALPN); errs.KindOf(err) != errs.KindInvalidAddress {
		t.Fatalf("local address: %v, want InvalidAddress", err)
	}
	named := dialAddress(t, mustGenerate(t), "h")
	for _, alpn := range []string{"", strings.Repeat("a", 256)} {
		if _, _, err := ClientConfig(named, TrustByAddress(), nil, alpn); errs.KindOf(err) != errs.KindTLS {
			t.Fatalf("ALPN of %d bytes: %v, want Tls", len(alpn), err)
		}
	}
	if _, _, err := ClientConfig(named, TrustByAddress(), &Identity{}, testALPN); errs.KindOf(err) != errs.KindTLS {
		t.Fatalf("zero client identity: %v, want Tls", err)
	}
}

func TestClientConfigShape(t *testing.T) {
	config, _ := mustClientConfig(t, dialAddress(t, mustGenerate(t), "Example.COM"), TrustByAddress(), nil)
	if config.MinVersion != tls.VersionTLS13 || config.MaxVersion != tls.VersionTLS13 {
		t.Errorf("versions %x..%x, want TLS 1.3 only", config.MinVersion, config.MaxVersion)
	}
	if len(config.NextProtos) != 1 || config.NextProtos[0] != testALPN {
		t.Errorf("NextProtos %q", config.NextProtos)
	}
	if config.ServerName != "Example.COM" {
		t.Errorf("ServerName %q, want the host as written", config.ServerName)
	}
}

func TestALPNMustMatch(t *testing.T) {
	server := mustGenerate(t)
	addr := dialAddress(t, server, "h")

	t.Run("different protocols", func(t *testing.T) {
		serverConfig, err := ServerConfig(server, ClientAnonymousAllowed, TrustByAddress(), "other/1")
		if err != nil {
			t.Fatal(err)
		}
		clientConfig, _ := mustClientConfig(t, addr, TrustByAddress(), nil)
		res := runHandshake(t, clientConfig, serverConfig)
		if res.clientErr == nil || res.serverErr == nil {
			t.Fatalf("client %v, server %v: both sides must fail", res.clientErr, res.serverErr)
		}
	})
	t.Run("server without ALPN", func(t *testing.T) {
		serverConfig := mustServerConfig(t, server, ClientAnonymousAllowed, TrustByAddress())
		serverConfig.NextProtos = nil
		clientConfig, verification := mustClientConfig(t, addr, TrustByAddress(), nil)
		res := runHandshake(t, clientConfig, serverConfig)
		if errs.KindOf(res.clientErr) != errs.KindTLS || !strings.Contains(res.clientErr.Error(), `application protocol ""`) {
			t.Fatalf("client error %v, want Tls about the missing protocol", res.clientErr)
		}
		if verification.Err() != res.clientErr {
			t.Fatalf("Verification.Err() = %v", verification.Err())
		}
	})
	t.Run("client without ALPN", func(t *testing.T) {
		// A foreign client: ClientConfig's own check would refuse first.
		clientConfig := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true}
		res := runHandshake(t, clientConfig, mustServerConfig(t, server, ClientAnonymousAllowed, TrustByAddress()))
		if errs.KindOf(res.serverErr) != errs.KindTLS {
			t.Fatalf("server error %v, want Tls", res.serverErr)
		}
	})
}

func TestTLS12ServerIsRefused(t *testing.T) {
	server := mustGenerate(t)
	serverConfig := mustServerConfig(t, server, ClientAnonymousAllowed, TrustByAddress())
	serverConfig.MinVersion, serverConfig.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	clientConfig, _ := mustClientConfig(t, dialAddress(t, server, "h"), TrustByAddress(), nil)
	if res := runHandshake(t, clientConfig, serverConfig); res.clientErr == nil {
		t.Fatal("a TLS 1.2 handshake succeeded")
	}
}
