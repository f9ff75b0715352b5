package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// TestClientVerification walks the accepting side's modes (SEMANTICS.md §8.1).
func TestClientVerification(t *testing.T) {
	server := mustGenerate(t)
	ca := newTestCA(t)
	client, stranger := mustGenerate(t), mustGenerate(t)
	issuedClient := ca.issue(t, certSpec{}) // names nothing: names are not checked for clients
	expiredClient := selfSigned(t, newP256Key(t), certSpec{
		notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)})
	longChain := withChain(t, client, 9)
	hugeCert := selfSigned(t, newP256Key(t), certSpec{extra: []pkix.Extension{
		{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1}, Value: make([]byte, maxAnyKeyChainBytes)}}})

	tests := []struct {
		name   string
		auth   ClientAuth
		trust  Trust
		client *Identity
		// refusedBecause is empty when the client must be accepted,
		// else a phrase the server's error must contain.
		refusedBecause string
	}{
		{"anonymous allowed, anonymous client", ClientAnonymousAllowed, TrustByAddress(), nil, ""},
		{"anonymous allowed, client with a key", ClientAnonymousAllowed, TrustByAddress(), client, ""},
		{"trusted: missing certificate", ClientTrusted, TrustPin(client.Fingerprint()), nil, "certificate"},
		{"trusted: pinned client", ClientTrusted, TrustPin(client.Fingerprint()), client, ""},
		{"trusted: unpinned client", ClientTrusted, TrustPin(client.Fingerprint()), stranger, "the peer presented " + stranger.Fingerprint().String()},
		{"trusted: anchored client", ClientTrusted, TrustAnchor(ca.cert), issuedClient, ""},
		{"trusted: unanchored client", ClientTrusted, TrustAnchor(ca.cert), stranger, "the anchor check failed"},
		{"any key: some client", ClientAnyKey, TrustByAddress(), stranger, ""},
		{"any key: no dates judged", ClientAnyKey, TrustByAddress(), expiredClient, ""},
		{"any key: missing certificate", ClientAnyKey, TrustByAddress(), nil, "certificate"},
		{"any key: chain too long", ClientAnyKey, TrustByAddress(), longChain, "presented 9 certificates; at most 8"},
		{"any key: chain too large", ClientAnyKey, TrustByAddress(), hugeCert, "at most 32768 are accepted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clientConfig, _ := mustClientConfig(t, dialAddress(t, server, "h"), TrustByAddress(), tc.client)
			res := runHandshake(t, clientConfig, mustServerConfig(t, server, tc.auth, tc.trust))
			if tc.refusedBecause != "" {
				if res.serverErr == nil || !strings.Contains(res.serverErr.Error(), tc.refusedBecause) {
					t.Fatalf("server error %v, want one saying %q", res.serverErr, tc.refusedBecause)
				}
				if res.clientErr == nil {
					t.Fatal("the client did not learn of its refusal")
				}
				return
			}
			if res.clientErr != nil || res.serverErr != nil {
				t.Fatalf("refused: client %v, server %v", res.clientErr, res.serverErr)
			}
			fp, ok := PeerFingerprint(res.serverState)
			if tc.client == nil {
				if ok {
					t.Fatalf("an anonymous client has the identity %s", fp)
				}
				return
			}
			if !ok || fp != tc.client.Fingerprint() {
				t.Fatalf("server sees %s (%v), want the client's %s", fp, ok, tc.client.Fingerprint())
			}
		})
	}
}

func TestUntrustedClientErrorNamesItsKey(t *testing.T) {
	server, stranger := mustGenerate(t), mustGenerate(t)
	clientConfig, _ := mustClientConfig(t, dialAddress(t, server, "h"), TrustByAddress(), stranger)
	res := runHandshake(t, clientConfig, mustServerConfig(t, server, ClientTrusted, TrustPin(server.Fingerprint())))
	var untrusted *UntrustedError
	if !errors.As(res.serverErr, &untrusted) || untrusted.Presented != stranger.Fingerprint() {
		t.Fatalf("server error %v, want *UntrustedError naming %s", res.serverErr, stranger.Fingerprint())
	}
}

// A pinned client's certificate matches no CA, so the request must not list any.
func TestCertificateRequestNamesNoCAs(t *testing.T) {
	server, ca := mustGenerate(t), newTestCA(t)
	client := ca.issue(t, certSpec{})
	clientConfig, _ := mustClientConfig(t, dialAddress(t, server, "h"), TrustByAddress(), client)
	present := clientConfig.GetClientCertificate
	acceptableCAs := -1
	clientConfig.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		acceptableCAs = len(cri.AcceptableCAs)
		return present(cri)
	}
	res := runHandshake(t, clientConfig, mustServerConfig(t, server, ClientTrusted, TrustAnchor(ca.cert)))
	if res.clientErr != nil || res.serverErr != nil {
		t.Fatalf("client %v, server %v", res.clientErr, res.serverErr)
	}
	if acceptableCAs != 0 {
		t.Fatalf("the CertificateRequest listed %d CA names, want none", acceptableCAs)
	}
}

// Every key type TLS 1.3 can sign with works on both sides of a handshake.
func TestKeyTypesHandshake(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []crypto.Signer{newP256Key(t), p384, ed, rsaKey} {
		id := selfSigned(t, key, certSpec{})
		t.Run(describeKey(key), func(t *testing.T) {
			clientConfig, _ := mustClientConfig(t, dialAddress(t, id, "h"), TrustByAddress(), id)
			res := runHandshake(t, clientConfig, mustServerConfig(t, id, ClientAnyKey, TrustByAddress()))
			if res.clientErr != nil || res.serverErr != nil {
				t.Fatalf("client %v, server %v", res.clientErr, res.serverErr)
			}
			if fp, _ := PeerFingerprint(res.serverState); fp != id.Fingerprint() {
				t.Fatalf("server sees %s", fp)
			}
		})
	}
}

func TestServerConfigRefusesMisconfiguration(t *testing.T) {
	id, other := mustGenerate(t), mustGenerate(t)
	tests := []struct {
		name          string
		id            *Identity
		auth          ClientAuth
		trust         Trust
		alpn          string
		wantInMessage string
	}{
		{"trusted clients with empty trust", id, ClientTrusted, TrustByAddress(), testALPN, "non-empty client trust"},
		{"trust without ClientTrusted", id, ClientAnonymousAllowed, TrustPin(other.Fingerprint()), testALPN, "only used with ClientTrusted, not ClientAnonymousAllowed"},
		{"trust with any key", id, ClientAnyKey, TrustPin(other.Fingerprint()), testALPN, "not ClientAnyKey"},
		{"unknown mode", id, ClientAuth(7), TrustByAddress(), testALPN, "ClientAuth(7)"},
		{"no identity", nil, ClientAnonymousAllowed, TrustByAddress(), testALPN, "needs an identity"},
		{"zero identity", &Identity{}, ClientAnonymousAllowed, TrustByAddress(), testALPN, "needs an identity"},
		{"empty ALPN", id, ClientAnonymousAllowed, TrustByAddress(), "", "must be 1..255 bytes"},
	}
	for _, tc := range tests {
		_, err := ServerConfig(tc.id, tc.auth, tc.trust, tc.alpn)
		if errs.KindOf(err) != errs.KindTLS || !strings.Contains(err.Error(), tc.wantInMessage) {
			t.Errorf("%s: %v, want Tls saying %q", tc.name, err, tc.wantInMessage)
		}
	}
	config := mustServerConfig(t, id, ClientAnonymousAllowed, TrustByAddress())
	if config.MinVersion != tls.VersionTLS13 || config.MaxVersion != tls.VersionTLS13 || config.ClientCAs != nil ||
		len(config.NextProtos) != 1 || config.NextProtos[0] != testALPN || config.ClientAuth != tls.RequestClientCert {
		t.Errorf("unexpected server config shape: %+v", config)
	}
}

// withChain returns id presenting n certificates: its leaf, then copies of it.
// The bounds are on what is presented, so the copies need not form a chain.
func withChain(t *testing.T, id *Identity, n int) *Identity {
	t.Helper()
	chain := make([]*x509.Certificate, n)
	for i := range chain {
		chain[i] = id.Leaf()
	}
	long, err := newIdentity(chain, id.key)
	if err != nil {
		t.Fatal(err)
	}
	return long
}
