package identity

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

func TestGenerateIsSelfSignedP256WithoutNames(t *testing.T) {
	id := mustGenerate(t)
	leaf := id.Leaf()
	key, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		t.Fatalf("public key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if len(leaf.DNSNames)+len(leaf.IPAddresses) != 0 {
		t.Fatalf("names %v %v, want none", leaf.DNSNames, leaf.IPAddresses)
	}
	if err := leaf.CheckSignatureFrom(leaf); err != nil {
		t.Fatalf("not self-signed: %v", err)
	}
	if other := mustGenerate(t); other.Fingerprint() == id.Fingerprint() {
		t.Fatal("two generated identities share a key")
	}
}

func TestGenerateForNamesHostsAndCanAnchorItself(t *testing.T) {
	id := mustGenerateFor(t, LoopbackNames()...)
	leaf := id.Leaf()
	if !slices.Equal(leaf.DNSNames, []string{"localhost"}) {
		t.Errorf("DNS names %v", leaf.DNSNames)
	}
	if len(leaf.IPAddresses) != 2 || !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) || !leaf.IPAddresses[1].Equal(net.IPv6loopback) {
		t.Errorf("IP addresses %v", leaf.IPAddresses)
	}
	if !leaf.IsCA || leaf.KeyUsage&x509.KeyUsageCertSign == 0 || leaf.KeyUsage&x509.KeyUsageDigitalSignature == 0 {
		t.Errorf("IsCA %v, key usage %b: want a CA that signs", leaf.IsCA, leaf.KeyUsage)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	for _, host := range LoopbackNames() {
		for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
			opts := x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}}
			if _, err := leaf.Verify(opts); err != nil {
				t.Errorf("as its own anchor for %s, usage %v: %v", host, usage, err)
			}
		}
	}
}

func TestGenerateForRejectsBadNames(t *testing.T) {
	tests := []struct{ name, wantInMessage string }{
		{"", "must not be empty"},
		{"[::1]", "neither an IP literal"},
		{"host:7443", "neither an IP literal"},
		{"a b", "neither an IP literal"},
		{strings.Repeat("a", 254), "longer than the 253"},
	}
	for _, tc := range tests {
		_, err := GenerateFor([]string{"localhost", tc.name})
		if errs.KindOf(err) != errs.KindInvalidAddress || !strings.Contains(err.Error(), tc.wantInMessage) {
			t.Errorf("GenerateFor(%q) = %v, want InvalidAddress saying %q", tc.name, err, tc.wantInMessage)
		}
	}
}

// keyPEM encodes key in the given PEM block type.
func keyPEM(t *testing.T, key crypto.Signer, blockType string) []byte {
	t.Helper()
	var der []byte
	var err error
	switch blockType {
	case pemPKCS8Key:
		der, err = x509.MarshalPKCS8PrivateKey(key)
	case pemECKey:
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	case pemPKCS1Key:
		der = x509.MarshalPKCS1PrivateKey(key.(*rsa.PrivateKey))
	}
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
}

func TestFromPEMKeyFormats(t *testing.T) {
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
	p256 := newP256Key(t)
	tests := []struct {
		name      string
		key       crypto.Signer
		blockType string
	}{
		{"P-256 PKCS#8", p256, pemPKCS8Key},
		{"P-256 SEC 1", p256, pemECKey},
		{"P-384 SEC 1", p384, pemECKey},
		{"Ed25519 PKCS#8", ed, pemPKCS8Key},
		{"RSA PKCS#1", rsaKey, pemPKCS1Key},
		{"RSA PKCS#8", rsaKey, pemPKCS8Key},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cert := signCert(t, tc.key, certSpec{}, nil, nil)
			certPEM := pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: cert.Raw})
			// Key first, with openssl-style text around it: order and comments do not matter.
			blob := slices.Concat([]byte("Bag Attributes\n"), keyPEM(t, tc.key, tc.blockType), certPEM)
			id, err := FromPEM(blob)
			if err != nil {
				t.Fatalf("FromPEM: %v", err)
			}
			if id.Fingerprint() != FingerprintOf(cert) {
				t.Fatal("wrong fingerprint")
			}
			again, err := FromPEM(id.PEM())
			if err != nil {
				t.Fatalf("FromPEM(PEM()): %v", err)
			}
			if again.Fingerprint() != id.Fingerprint() || !bytes.Equal(again.PEM(), id.PEM()) {
				t.Fatal("PEM round trip changed the identity")
			}
		})
	}
}

func TestPEMKeepsTheChainAndCertificatePEMDropsTheKey(t *testing.T) {
	ca := newTestCA(t)
	id := ca.issue(t, certSpec{names: []string{"svc"}})
	again, err := FromPEM(id.PEM())
	if err != nil {
		t.Fatal(err)
	}
	if len(again.chain) != 2 || !again.chain[1].Equal(ca.cert) {
		t.Fatalf("chain of %d certificates after the round trip, want leaf and CA", len(again.chain))
	}
	certOnly := id.CertificatePEM()
	if bytes.Contains(certOnly, []byte("PRIVATE KEY")) {
		t.Fatal("CertificatePEM contains a private key")
	}
	if !bytes.HasPrefix(id.PEM(), certOnly) {
		t.Fatal("PEM does not start with the chain")
	}
	if _, err := FromPEM(certOnly); err == nil || !strings.Contains(err.Error(), "no private key") {
		t.Fatalf("FromPEM without a key: %v", err)
	}
}

func TestFromPEMRejects(t *testing.T) {
	id := mustGenerate(t)
	other := mustGenerate(t)
	certPEM := id.CertificatePEM()
	keyOnly := bytes.TrimPrefix(id.PEM(), certPEM)
	otherKey := bytes.TrimPrefix(other.PEM(), other.CertificatePEM())
	smallRSA, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p224Cert := pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: signCert(t, p224, certSpec{}, nil, nil).Raw})
	smallRSACert := pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: signCert(t, smallRSA, certSpec{}, nil, nil).Raw})
	tests := []struct {
		name          string
		blob          []byte
		wantInMessage string
	}{
		{"empty", nil, "no PEM certificate or key found"},
		{"not PEM", []byte("hello"), "no PEM certificate or key found"},
		{"key only", keyOnly, "no CERTIFICATE block"},
		{"foreign key", slices.Concat(certPEM, otherKey), "does not belong to the first (leaf) certificate"},
		{"two keys", slices.Concat(certPEM, keyOnly, keyOnly), "more than one private key"},
		{"encrypted PKCS#8", slices.Concat(certPEM, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}})), "encrypted private keys are not supported"},
		{"legacy encrypted", slices.Concat(certPEM, pem.EncodeToMemory(&pem.Block{Type: pemECKey, Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}})), "encrypted"},
		{"unknown block", slices.Concat(certPEM, keyOnly, pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: []byte{1}})), `unexpected PEM block "X509 CRL"`},
		{"corrupt certificate", slices.Concat(pem.EncodeToMemory(&pem.Block{Type: pemCertificate, Bytes: []byte{0x30, 0x00}}), keyOnly), "certificate 1:"},
		{"corrupt key", slices.Concat(certPEM, pem.EncodeToMemory(&pem.Block{Type: pemECKey, Bytes: []byte{0x30, 0x00}})), "EC PRIVATE KEY block:"},
		{"P-224 key", slices.Concat(p224Cert, keyPEM(t, p224, pemECKey)), "curve P-224 cannot sign a TLS 1.3 handshake"},
		{"small RSA key", slices.Concat(smallRSACert, keyPEM(t, smallRSA, pemPKCS1Key)), "RSA key of 1024 bits is too small"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromPEM(tc.blob)
			if errs.KindOf(err) != errs.KindTLS || !strings.Contains(err.Error(), tc.wantInMessage) {
				t.Fatalf("FromPEM = %v, want Tls saying %q", err, tc.wantInMessage)
			}
		})
	}
}

// No fmt verb, on the value or the pointer, directly or nested, may print key bytes.
func TestFormattingNeverPrintsTheKey(t *testing.T) {
	id := mustGenerate(t)
	scalar := id.key.(*ecdsa.PrivateKey).D
	secrets := []string{scalar.String(), hex.EncodeToString(scalar.Bytes()), fmt.Sprintf("%X", scalar.Bytes())}
	nested := struct {
		ID  Identity
		Ptr *Identity
	}{*id, id}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		for _, value := range []any{id, *id, nested} {
			out := fmt.Sprintf(verb, value)
			for _, secret := range secrets {
				if strings.Contains(out, secret) {
					t.Fatalf("%s of %T prints the private key: %s", verb, value, out)
				}
			}
			if !strings.Contains(out, id.Fingerprint().String()) {
				t.Fatalf("%s of %T does not show the fingerprint: %s", verb, value, out)
			}
		}
	}
	if got := fmt.Sprintf("%#v", id); !strings.Contains(got, `Key: "ECDSA P-256"`) {
		t.Errorf("%%#v = %s, want the key's algorithm", got)
	}
}
