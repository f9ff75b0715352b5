package weida

import "github.com/weida-go/weida/core/identity"

// Identity is a certificate chain and its private key; a peer is known by
// the fingerprint of its public key.
type Identity = identity.Identity

// Fingerprint is the SHA-256 of a certificate's SubjectPublicKeyInfo; its
// text form is sha256:<64 lowercase hex>.
type Fingerprint = identity.Fingerprint

// Trust is the set of keys (pins) and certificate authorities (anchors) a
// dialling side accepts. An address that names a fingerprint overrides it.
type Trust = identity.Trust

// Address is a parsed weida URL.
type Address = identity.Address

// GenerateIdentity makes a self-signed ECDSA P-256 identity naming no host:
// it is meant to be pinned by fingerprint.
func GenerateIdentity() (*Identity, error) { return identity.Generate() }

// GenerateIdentityFor makes a self-signed identity naming hosts (DNS names or
// IP literals), usable as a certificate authority anchor by clients.
func GenerateIdentityFor(names []string) (*Identity, error) { return identity.GenerateFor(names) }

// LoadIdentity reads an identity (chain and key) from one PEM file.
func LoadIdentity(path string) (*Identity, error) { return identity.LoadPEMFile(path) }

// LoadOrCreateIdentity loads the identity at path, or generates one naming
// names and writes it there owner-only (0600, create-new).
func LoadOrCreateIdentity(path string, names []string) (*Identity, bool, error) {
	return identity.LoadOrCreate(path, names)
}

// TrustByAddress trusts only what a dialled address names.
func TrustByAddress() Trust { return identity.TrustByAddress() }

// TrustPin trusts the key with this fingerprint ("sha256:<64 hex>").
func TrustPin(fingerprint string) (Trust, error) { return identity.TrustPinString(fingerprint) }

// TrustAnchorFile trusts certificates chaining to the PEM certificates in
// path, for the host names they carry.
func TrustAnchorFile(path string) (Trust, error) { return identity.TrustAnchorFile(path) }

// ParseFingerprint parses "sha256:<64 hex>".
func ParseFingerprint(s string) (Fingerprint, error) { return identity.ParseFingerprint(s) }

// ParseAddress parses a dialling URL such as weida://sha256:…@host:port/path.
func ParseAddress(s string) (Address, error) { return identity.ParseAddress(s) }
