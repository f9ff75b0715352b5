package identity

import (
	"crypto"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
)

// DeriveSecret derives n secret bytes from a private key for the purpose
// label names: HKDF-SHA-256 over the key's PKCS #8 encoding, with label as
// the info. It is deterministic per key and label and one-way, so what it
// yields reveals nothing of the key, and two labels give unrelated
// secrets. The QUIC ports derive their stateless reset keys with it, so a
// restarted process resets the connections of its previous run.
func DeriveSecret(key crypto.PrivateKey, label string, n int) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("deriving %q: %w", label, err)
	}
	secret, err := hkdf.Key(sha256.New, der, nil, label, n)
	if err != nil {
		return nil, fmt.Errorf("deriving %q: %w", label, err)
	}
	return secret, nil
}
