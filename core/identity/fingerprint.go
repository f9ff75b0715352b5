package identity

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/weida-go/weida/core/errs"
)

// Fingerprint is a peer's identity: SHA-256 over the DER encoding of the
// SubjectPublicKeyInfo of the leaf certificate it presented (PROTOCOL.md
// §2.2). Hashing the key rather than the certificate lets the value survive
// a renewal that keeps the key; it equals a curl --pinnedpubkey pin.
type Fingerprint [sha256.Size]byte

// fingerprintPrefix is the only algorithm name the text form admits.
const fingerprintPrefix = "sha256:"

// fingerprintHexDigits is the exact number of hex digits after the prefix.
const fingerprintHexDigits = 2 * sha256.Size

// ParseFingerprint parses the text form "sha256:" followed by exactly 64
// hex digits. The prefix must be literally lowercase; the digits may be of
// either case. Errors are of kind InvalidFingerprint.
func ParseFingerprint(s string) (Fingerprint, error) {
	var fp Fingerprint
	digits, ok := strings.CutPrefix(s, fingerprintPrefix)
	if !ok {
		return fp, invalidFingerprint(s, `must start with the lowercase prefix "sha256:"`)
	}
	if len(digits) != fingerprintHexDigits {
		return fp, invalidFingerprint(s, fmt.Sprintf(
			`must have exactly %d hex digits after "sha256:", not %d`, fingerprintHexDigits, len(digits)))
	}
	for i := 0; i < len(digits); i++ {
		if !isHexDigit(digits[i]) {
			return fp, invalidFingerprint(s, fmt.Sprintf(
				"%q at offset %d is not a hex digit", digits[i], len(fingerprintPrefix)+i))
		}
	}
	// Every byte was checked above, so decoding cannot fail.
	_, _ = hex.Decode(fp[:], []byte(digits))
	return fp, nil
}

// String returns the canonical text form: "sha256:" and 64 lowercase hex digits.
func (f Fingerprint) String() string {
	return fingerprintPrefix + hex.EncodeToString(f[:])
}

// FingerprintOfSPKI returns the fingerprint of a DER SubjectPublicKeyInfo.
func FingerprintOfSPKI(spkiDER []byte) Fingerprint {
	return sha256.Sum256(spkiDER)
}

// FingerprintOf returns the fingerprint of cert's public key.
func FingerprintOf(cert *x509.Certificate) Fingerprint {
	return FingerprintOfSPKI(cert.RawSubjectPublicKeyInfo)
}

// PeerFingerprint returns the fingerprint of the leaf certificate the peer
// presented in a handshake, and false when it presented none (an anonymous
// client has no identity).
func PeerFingerprint(cs tls.ConnectionState) (Fingerprint, bool) {
	if len(cs.PeerCertificates) == 0 {
		return Fingerprint{}, false
	}
	return FingerprintOf(cs.PeerCertificates[0]), true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func invalidFingerprint(s, reason string) *errs.Error {
	return errs.New(errs.KindInvalidFingerprint, "invalid fingerprint %s: %s", quote(s), reason)
}
