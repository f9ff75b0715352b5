package identity

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"testing"
	"time"
)

const testALPN = "weida/0"

// handshakeTimeout bounds a test handshake so a bug fails the test instead
// of hanging it; it is not used for synchronisation.
const handshakeTimeout = 10 * time.Second

func mustGenerate(t *testing.T) *Identity {
	t.Helper()
	id, err := Generate()
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return id
}

func mustGenerateFor(t *testing.T, names ...string) *Identity {
	t.Helper()
	id, err := GenerateFor(names)
	if err != nil {
		t.Fatalf("GenerateFor(%q): %v", names, err)
	}
	return id
}

func mustParseAddress(t *testing.T, s string) Address {
	t.Helper()
	a, err := ParseAddress(s)
	if err != nil {
		t.Fatalf("ParseAddress(%q): %v", s, err)
	}
	return a
}

func newP256Key(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// certSpec describes a test certificate; zero fields take usable defaults.
type certSpec struct {
	names     []string
	notBefore time.Time
	notAfter  time.Time
	isCA      bool
	extra     []pkix.Extension
}

// signCert creates a certificate for key's public half described by spec,
// signed by issuer (self-signed when issuer is nil).
func signCert(t *testing.T, key crypto.Signer, spec certSpec, issuer *x509.Certificate, issuerKey crypto.Signer) *x509.Certificate {
	t.Helper()
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "weida test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  spec.isCA,
		ExtraExtensions:       spec.extra,
	}
	if spec.isCA {
		template.KeyUsage |= x509.KeyUsageCertSign
	}
	if !spec.notBefore.IsZero() {
		template.NotBefore, template.NotAfter = spec.notBefore, spec.notAfter
	}
	for _, name := range spec.names {
		if ip := net.ParseIP(name); ip != nil {
			template.IPAddresses = append(template.IPAddresses, ip)
		} else {
			template.DNSNames = append(template.DNSNames, name)
		}
	}
	if issuer == nil {
		issuer, issuerKey = template, key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, issuer, key.Public(), issuerKey)
	if err != nil {
		t.Fatalf("CreateCertificate: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// testCA is a certificate authority that issues leaf identities.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func newTestCA(t *testing.T) testCA {
	t.Helper()
	key := newP256Key(t)
	return testCA{cert: signCert(t, key, certSpec{isCA: true}, nil, nil), key: key}
}

// issue returns an identity whose chain is [leaf, CA].
func (ca testCA) issue(t *testing.T, spec certSpec) *Identity {
	t.Helper()
	key := newP256Key(t)
	leaf := signCert(t, key, spec, ca.cert, ca.key)
	id, err := newIdentity([]*x509.Certificate{leaf, ca.cert}, key)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// selfSigned returns an identity with a self-signed certificate for key.
func selfSigned(t *testing.T, key crypto.Signer, spec certSpec) *Identity {
	t.Helper()
	id, err := newIdentity([]*x509.Certificate{signCert(t, key, spec, nil, nil)}, key)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// handshakeResult is what each side of one loopback TLS handshake saw.
type handshakeResult struct {
	clientErr, serverErr     error
	clientState, serverState tls.ConnectionState
}

// runHandshake performs one TLS handshake over loopback TCP. In TLS 1.3 the
// client finishes before the server has judged the client certificate, so
// after a successful handshake the client reads until the server closes:
// a late rejection then arrives as the client's error.
func runHandshake(t *testing.T, clientConfig, serverConfig *tls.Config) handshakeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
	defer cancel()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()

	var res handshakeResult
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		raw, err := listener.Accept()
		if err != nil {
			res.serverErr = err
			return
		}
		conn := tls.Server(raw, serverConfig)
		defer conn.Close()
		res.serverErr = conn.HandshakeContext(ctx)
		res.serverState = conn.ConnectionState()
	}()

	raw, err := net.Dial("tcp", listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn := tls.Client(raw, clientConfig)
	res.clientErr = conn.HandshakeContext(ctx)
	res.clientState = conn.ConnectionState()
	if res.clientErr == nil {
		_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
		if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			res.clientErr = err
		}
	}
	conn.Close()
	<-serverDone
	return res
}

func certificatePEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: cert.Raw})
}
