// Package identity is who a weida peer is and whom it believes: keys and
// certificates, fingerprints, weida addresses, trust policies, and the
// crypto/tls configurations that enforce them (PROTOCOL.md §2, §12;
// SEMANTICS.md §8.1–§8.3).
//
// A peer's identity is its Fingerprint: SHA-256 over the DER
// SubjectPublicKeyInfo of the leaf certificate it presents. An Identity is
// a certificate chain plus its private key; Generate makes a throwaway one
// for pinning, GenerateFor one that names hosts and can serve as an anchor,
// and LoadOrCreate keeps one on disk so an address stays stable across
// restarts.
//
// An Address is a parsed weida:// (QUIC), weida+unix:// or weida+inproc://
// URL. A weida:// address may name the only key allowed to answer
// (weida://sha256:<hex>@host:port/path); that fingerprint overrides any
// Trust. A Trust is an immutable set of pinned fingerprints and
// certificate-authority anchors.
//
// ClientConfig and ServerConfig build TLS 1.3 configurations whose
// VerifyConnection callback implements the verification policy of
// PROTOCOL.md §2.4. Go's own chain check is switched off (it cannot express
// pins or address fingerprints); Go still verifies the CertificateVerify
// signature, so a key is accepted only from a peer that proves it holds it.
// Because quic-go does not surface the callback's error, ClientConfig also
// returns a Verification through which the dialler learns which key
// answered and why it was refused.
package identity
