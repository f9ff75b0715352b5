package transport

import (
	"crypto/tls"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// resetKeyLabel is the HKDF info of the stateless reset key; the version
// suffix lets a future derivation change without colliding with this one.
const resetKeyLabel = "weida stateless reset key v1"

// statelessResetKey derives the listener's QUIC stateless reset key
// (RFC 9000 §10.3) from the server identity's private key, so that the
// same identity listening again on the same address, e.g. a restarted
// broker, can reset the connections of its previous run at once instead of
// leaving their clients to wait out the idle timeout. It is HKDF-SHA-256
// over the key's PKCS #8 encoding with resetKeyLabel: deterministic per
// identity and one-way, so the reset tokens it yields reveal nothing of the
// key. Nil (no resets, as before) when tlsConf carries no usable key.
func statelessResetKey(tlsConf *tls.Config) *quic.StatelessResetKey {
	if tlsConf == nil || len(tlsConf.Certificates) == 0 {
		return nil
	}
	var key quic.StatelessResetKey
	derived, err := identity.DeriveSecret(tlsConf.Certificates[0].PrivateKey, resetKeyLabel, len(key))
	if err != nil {
		return nil
	}
	copy(key[:], derived)
	return &key
}
