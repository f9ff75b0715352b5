package identity

import (
	"crypto/x509"
	"errors"
	"testing"

	"github.com/weida-go/weida/core/errs"
)

// The policy on its own, without a handshake: the reason behind a refusal
// stays reachable for callers that want more than the sentence.
func TestPolicyRefusalKeepsItsReason(t *testing.T) {
	ca := newTestCA(t)
	issued := ca.issue(t, certSpec{names: []string{"localhost"}})
	policy := peerPolicy{trust: TrustAnchor(ca.cert), host: "example.invalid", usage: x509.ExtKeyUsageServerAuth}
	err := policy.check(issued.chain)
	var hostnameErr x509.HostnameError
	if !errors.As(err, &hostnameErr) {
		t.Fatalf("error %v does not unwrap to x509.HostnameError", err)
	}
	policy.host = "localhost"
	if err := policy.check(issued.chain); err != nil {
		t.Fatalf("with the right host: %v", err)
	}
}

func TestPolicyNeedsACertificate(t *testing.T) {
	policy := peerPolicy{trust: TrustPin(Fingerprint{})}
	if err := policy.check(nil); errs.KindOf(err) != errs.KindTLS {
		t.Fatalf("empty chain: %v, want Tls", err)
	}
}

func TestVerificationBeforeAnyHandshake(t *testing.T) {
	var v Verification
	if fp, ok := v.Presented(); ok || fp != (Fingerprint{}) {
		t.Errorf("Presented() = %s, %v before any handshake", fp, ok)
	}
	if err := v.Err(); err != nil {
		t.Errorf("Err() = %v before any handshake", err)
	}
}
