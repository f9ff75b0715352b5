package identity

import (
	"crypto/x509"
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// Bounds on a client chain accepted under ClientAnyKey (SEMANTICS.md §8.1).
// crypto/tls has already capped the whole Certificate message at 256 KiB
// before these run.
const (
	maxAnyKeyChainCerts = 8
	maxAnyKeyChainBytes = 32 << 10
)

// UntrustedError is the refusal of PROTOCOL.md §2.4: the peer presented a
// key that neither the address nor the trust configuration accepts. It
// names the key so an operator can pin it.
type UntrustedError struct {
	// Presented is the fingerprint of the leaf the peer presented.
	Presented Fingerprint
	// Reason, when set, says which check refused it (e.g. the chain
	// error from an anchor check); it is appended to the sentence.
	Reason error
}

// Error returns "the peer presented sha256:<hex>, which is not trusted",
// followed by ": <reason>" when a reason is known.
func (e *UntrustedError) Error() string {
	text := "the peer presented " + e.Presented.String() + ", which is not trusted"
	if e.Reason != nil {
		text += ": " + e.Reason.Error()
	}
	return text
}

// Unwrap returns the reason.
func (e *UntrustedError) Unwrap() error { return e.Reason }

// peerPolicy is the verification policy of PROTOCOL.md §2.4 as applied to
// one peer certificate chain.
type peerPolicy struct {
	// expected is the fingerprint the dialled address names, if any.
	expected    Fingerprint
	hasExpected bool
	trust       Trust
	// host is the dialled host a server certificate must name under an
	// anchor; empty when judging a client certificate.
	host string
	// usage is the extended key usage an anchored chain must allow.
	usage x509.ExtKeyUsage
}

// check applies steps 1–4 to a presented chain (leaf first). It returns
// nil, an *UntrustedError, or an *errs.Error when nothing was presented.
func (p peerPolicy) check(chain []*x509.Certificate) error {
	if len(chain) == 0 {
		return errs.New(errs.KindTLS, "the peer presented no certificate")
	}
	presented := FingerprintOf(chain[0])
	// Step 1: a fingerprint in the address overrides all local trust.
	if p.hasExpected {
		if presented == p.expected {
			return nil
		}
		return &UntrustedError{Presented: presented, Reason: fmt.Errorf("the address names %s", p.expected)}
	}
	// Step 2: a pin ignores names, chains and dates.
	if p.trust.pinned(presented) {
		return nil
	}
	// Step 3: an anchor needs an ordinary chain and, for servers, the host name.
	if p.trust.pool != nil {
		err := verifyToAnchor(chain, p.trust.pool, p.host, p.usage)
		if err == nil {
			return nil
		}
		return &UntrustedError{Presented: presented, Reason: fmt.Errorf("it is not pinned and %w", err)}
	}
	// Step 4: nothing vouches for it.
	return &UntrustedError{Presented: presented, Reason: fmt.Errorf("it is not among the %d pinned keys", p.trust.pinCount())}
}

// verifyToAnchor runs x509 chain verification against the anchors,
// treating the peer's extra certificates as intermediates.
func verifyToAnchor(chain []*x509.Certificate, anchors *x509.CertPool, host string, usage x509.ExtKeyUsage) error {
	intermediates := x509.NewCertPool()
	for _, cert := range chain[1:] {
		intermediates.AddCert(cert)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{
		Roots:         anchors,
		Intermediates: intermediates,
		DNSName:       host,
		KeyUsages:     []x509.ExtKeyUsage{usage},
	})
	if err != nil {
		return fmt.Errorf("the anchor check failed: %w", err)
	}
	return nil
}

// checkAnyKeyChain enforces the ClientAnyKey bounds on a presented chain.
func checkAnyKeyChain(chain []*x509.Certificate) error {
	if len(chain) > maxAnyKeyChainCerts {
		return errs.New(errs.KindTLS, "the client presented %d certificates; at most %d are accepted",
			len(chain), maxAnyKeyChainCerts)
	}
	total := 0
	for _, cert := range chain {
		total += len(cert.Raw)
	}
	if total > maxAnyKeyChainBytes {
		return errs.New(errs.KindTLS, "the client's certificate chain is %d bytes; at most %d are accepted",
			total, maxAnyKeyChainBytes)
	}
	return nil
}
