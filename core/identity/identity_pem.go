package identity

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// PEM block types an identity file may contain.
const (
	pemCertificate = "CERTIFICATE"
	pemPKCS8Key    = "PRIVATE KEY"
	pemECKey       = "EC PRIVATE KEY"
	pemPKCS1Key    = "RSA PRIVATE KEY"
	// pemECParameters is written by `openssl ecparam -genkey` before the
	// key; it only repeats the curve the key already names.
	pemECParameters = "EC PARAMETERS"
	// pemEncryptedPKCS8Key is recognised only to refuse it clearly.
	pemEncryptedPKCS8Key = "ENCRYPTED PRIVATE KEY"
)

// FromPEM builds an identity from one PEM blob holding the certificate
// chain (leaf first) and the leaf's private key, in any order. Keys may be
// PKCS#8 ("PRIVATE KEY"), SEC 1 ("EC PRIVATE KEY") or PKCS#1 ("RSA PRIVATE
// KEY"), of any type TLS 1.3 can sign with. Errors are of kind Tls.
func FromPEM(data []byte) (*Identity, error) {
	id, err := parseIdentityPEM(data)
	if err != nil {
		return nil, errs.Wrap(errs.KindTLS, err, "invalid identity PEM")
	}
	return id, nil
}

// PEM returns the chain followed by the private key in PKCS#8. It holds the
// secret key: persist it owner-only (WritePEMFile does).
func (id *Identity) PEM() []byte {
	out := id.CertificatePEM()
	der, err := x509.MarshalPKCS8PrivateKey(id.key)
	if err != nil {
		// Unreachable: tlsSigner admits only key types PKCS#8 can encode.
		panic("identity: cannot encode the private key as PKCS#8: " + err.Error())
	}
	return append(out, pem.EncodeToMemory(&pem.Block{Type: pemPKCS8Key, Bytes: der})...)
}

// CertificatePEM returns the certificate chain without the key, e.g. for a
// peer to use as an anchor file (--cert-out).
func (id *Identity) CertificatePEM() []byte {
	var out bytes.Buffer
	for _, cert := range id.chain {
		_ = pem.Encode(&out, &pem.Block{Type: pemCertificate, Bytes: cert.Raw})
	}
	return out.Bytes()
}

// parseIdentityPEM reads the certificates and exactly one private key. Text
// between PEM blocks (e.g. openssl's "Bag Attributes") is ignored, as PEM
// readers customarily do; an unexpected block type is refused.
func parseIdentityPEM(data []byte) (*Identity, error) {
	var chain []*x509.Certificate
	var key crypto.PrivateKey
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if _, encrypted := block.Headers["Proc-Type"]; encrypted || block.Type == pemEncryptedPKCS8Key {
			return nil, errors.New("encrypted private keys are not supported; store the key unencrypted with owner-only permissions")
		}
		switch block.Type {
		case pemCertificate:
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("certificate %d: %w", len(chain)+1, err)
			}
			chain = append(chain, cert)
		case pemPKCS8Key, pemECKey, pemPKCS1Key:
			if key != nil {
				return nil, errors.New("more than one private key")
			}
			parsed, err := parsePrivateKey(block)
			if err != nil {
				return nil, err
			}
			key = parsed
		case pemECParameters:
		default:
			return nil, fmt.Errorf("unexpected PEM block %q (expected CERTIFICATE and one private key)", block.Type)
		}
	}
	switch {
	case chain == nil && key == nil:
		return nil, errors.New("no PEM certificate or key found")
	case chain == nil:
		return nil, errors.New("no CERTIFICATE block")
	case key == nil:
		return nil, errors.New("no private key block (PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY)")
	}
	return newIdentity(chain, key)
}

func parsePrivateKey(block *pem.Block) (crypto.PrivateKey, error) {
	var key crypto.PrivateKey
	var err error
	switch block.Type {
	case pemPKCS8Key:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case pemECKey:
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case pemPKCS1Key:
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%s block: %w", block.Type, err)
	}
	return key, nil
}
