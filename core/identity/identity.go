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
	"fmt"
	"io"
	"math/big"
	"net"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// Identity is a certificate chain (leaf first) and the private key of its
// leaf. It is immutable once built. Its String, GoString and Format methods
// print the fingerprint and never the key; they have value receivers so a
// copied Identity prints just as safely as a pointer to one.
//
// The zero Identity holds no certificate and is not usable; build one with
// Generate, GenerateFor, FromPEM, LoadPEMFile or LoadOrCreate.
type Identity struct {
	chain       []*x509.Certificate
	key         crypto.Signer
	fingerprint Fingerprint
}

// minRSABits is the smallest RSA key accepted, the floor of common TLS
// stacks (rustls/ring refuse to sign with less).
const minRSABits = 2048

// generatedCommonName is the subject of every generated certificate. Names
// that peers check live in the subject alternative names, never here.
const generatedCommonName = "weida"

// notAfterUnbounded is RFC 5280 §4.1.2.5's "no well-defined expiration
// date": generated identities are kept on disk to keep an address stable,
// and pins ignore dates anyway.
var notAfterUnbounded = time.Date(9999, time.December, 31, 23, 59, 59, 0, time.UTC)

// clockSkewAllowance backdates generated certificates so a peer whose clock
// runs slightly behind does not see a certificate from the future.
const clockSkewAllowance = time.Hour

// maxCertificateNameBytes is the longest DNS name (RFC 1035).
const maxCertificateNameBytes = 253

// LoopbackNames returns the names a locally generated server identity
// carries so that an anchor (--ca) client can dial it by any loopback
// spelling: localhost, 127.0.0.1 and ::1 (SURFACE.md §1.3).
func LoopbackNames() []string {
	return []string{"localhost", "127.0.0.1", "::1"}
}

// Generate returns a new self-signed ECDSA P-256 identity that names no
// host. Peers can only trust it by pinning its fingerprint.
func Generate() (*Identity, error) {
	return GenerateFor(nil)
}

// GenerateFor returns a new self-signed ECDSA P-256 identity whose
// certificate names each of names (a DNS name or an IP literal, IPv6
// without brackets). The certificate may sign certificates and serve as
// its own anchor, so a peer can trust it with TrustAnchorFile and a plain
// address. Bad names are errors of kind InvalidAddress.
func GenerateFor(names []string) (*Identity, error) {
	template, err := selfSignedTemplate(names)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, errs.Wrap(errs.KindTLS, err, "cannot generate an ECDSA P-256 key")
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, errs.Wrap(errs.KindTLS, err, "cannot create a self-signed certificate")
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, errs.Wrap(errs.KindTLS, err, "cannot parse the generated certificate")
	}
	return newIdentity([]*x509.Certificate{cert}, key)
}

// selfSignedTemplate describes a generated certificate: usable by servers
// and clients alike, and CA-capable so it can anchor itself.
func selfSignedTemplate(names []string) (*x509.Certificate, error) {
	// 127 random bits: positive, unique in practice, within RFC 5280's 20 octets.
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, errs.Wrap(errs.KindTLS, err, "cannot draw a certificate serial number")
	}
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: generatedCommonName},
		NotBefore:             time.Now().Add(-clockSkewAllowance),
		NotAfter:              notAfterUnbounded,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, name := range names {
		if ip := net.ParseIP(name); ip != nil {
			template.IPAddresses = append(template.IPAddresses, ip)
			continue
		}
		if err := checkDNSName(name); err != nil {
			return nil, err
		}
		template.DNSNames = append(template.DNSNames, name)
	}
	return template, nil
}

// checkDNSName admits the characters of host names (plus '_' and the '*'
// of wildcards), so a typo such as a bracketed IPv6 literal or a host:port
// is refused here rather than baked into a certificate no peer will match.
func checkDNSName(name string) error {
	if name == "" {
		return errs.New(errs.KindInvalidAddress, "invalid certificate name \"\": must not be empty")
	}
	if len(name) > maxCertificateNameBytes {
		return errs.New(errs.KindInvalidAddress, "invalid certificate name %s: %d bytes is longer than the %d a DNS name may have",
			quote(name), len(name), maxCertificateNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		isNameByte := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '*'
		if !isNameByte {
			return errs.New(errs.KindInvalidAddress,
				"invalid certificate name %s: it is neither an IP literal (IPv6 without brackets) nor a DNS name (%q at offset %d)",
				quote(name), c, i)
		}
	}
	return nil
}

// newIdentity checks that key can sign a TLS 1.3 handshake and belongs to
// the leaf, then builds the Identity. Every constructor ends here.
func newIdentity(chain []*x509.Certificate, key crypto.PrivateKey) (*Identity, error) {
	if len(chain) == 0 {
		return nil, errs.New(errs.KindTLS, "an identity needs at least one certificate")
	}
	signer, err := tlsSigner(key)
	if err != nil {
		return nil, err
	}
	leaf := chain[0]
	public, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !public.Equal(leaf.PublicKey) {
		return nil, errs.New(errs.KindTLS, "the private key does not belong to the first (leaf) certificate")
	}
	return &Identity{chain: chain, key: signer, fingerprint: FingerprintOf(leaf)}, nil
}

// tlsSigner accepts the key types that can produce a TLS 1.3
// CertificateVerify (PROTOCOL.md §2.2) and that PKCS#8 can store.
func tlsSigner(key crypto.PrivateKey) (crypto.Signer, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256(), elliptic.P384(), elliptic.P521():
			return k, nil
		}
		return nil, errs.New(errs.KindTLS, "an ECDSA key on curve %s cannot sign a TLS 1.3 handshake (use P-256, P-384 or P-521)",
			k.Curve.Params().Name)
	case ed25519.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		if bits := k.N.BitLen(); bits < minRSABits {
			return nil, errs.New(errs.KindTLS, "an RSA key of %d bits is too small; at least %d are required", bits, minRSABits)
		}
		return k, nil
	}
	return nil, errs.New(errs.KindTLS,
		"a private key of type %T cannot sign a TLS 1.3 handshake (use ECDSA P-256/P-384, Ed25519 or RSA)", key)
}

// Fingerprint returns the fingerprint of the leaf certificate's key: what
// peers pin and what addresses name.
func (id *Identity) Fingerprint() Fingerprint {
	return id.fingerprint
}

// Leaf returns the leaf certificate. It must not be modified.
func (id *Identity) Leaf() *x509.Certificate {
	return id.chain[0]
}

// TLSCertificate returns the chain and key in the form crypto/tls presents.
func (id *Identity) TLSCertificate() tls.Certificate {
	raw := make([][]byte, len(id.chain))
	for i, cert := range id.chain {
		raw[i] = cert.Raw
	}
	return tls.Certificate{Certificate: raw, PrivateKey: id.key, Leaf: id.chain[0]}
}

// usable reports whether id was built by a constructor (the zero Identity is not).
func (id *Identity) usable() bool {
	return id != nil && len(id.chain) > 0 && id.key != nil
}

// String returns "Identity(sha256:…)". It never includes key material.
func (id Identity) String() string {
	return "Identity(" + id.fingerprint.String() + ")"
}

// GoString describes the identity for %#v without key material.
func (id Identity) GoString() string {
	return fmt.Sprintf("identity.Identity{Fingerprint: %q, Certificates: %d, Key: %q}",
		id.fingerprint.String(), len(id.chain), describeKey(id.key))
}

// Format makes every fmt verb print String (GoString for %#v), so no verb
// can reach the private key through reflection.
func (id Identity) Format(state fmt.State, verb rune) {
	switch {
	case verb == 'v' && state.Flag('#'):
		_, _ = io.WriteString(state, id.GoString())
	case verb == 'q':
		_, _ = fmt.Fprintf(state, "%q", id.String())
	default:
		_, _ = io.WriteString(state, id.String())
	}
}

// describeKey names a key's algorithm and size, never its bits.
func describeKey(key crypto.Signer) string {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case ed25519.PrivateKey:
		return "Ed25519"
	case *rsa.PrivateKey:
		return fmt.Sprintf("RSA %d", k.N.BitLen())
	case nil:
		return "none"
	}
	return fmt.Sprintf("%T", key)
}
