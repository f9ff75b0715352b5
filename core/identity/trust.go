package identity

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

	"github.com/weida-go/weida/core/errs"
)

// maxAnchorFileBytes bounds what TrustAnchorFile reads; generous enough
// for a full CA bundle.
const maxAnchorFileBytes = 4 << 20

// Trust is whom a side believes when the address names no fingerprint:
// pinned fingerprints and certificate-authority anchors (SEMANTICS.md
// §8.1). It is an immutable value; the And… methods return a new Trust and
// never alter the receiver. The zero Trust is TrustByAddress.
type Trust struct {
	pins    []Fingerprint
	anchors []*x509.Certificate
	pool    *x509.CertPool // the anchors, as x509 verification wants them; nil without anchors
	pinSet  *PinSet        // pins that may change after the Trust was built; nil without
}

// TrustByAddress trusts nothing beyond what an address names. Dialling a
// plain address under it fails before any packet is sent.
func TrustByAddress() Trust {
	return Trust{}
}

// TrustPin trusts one key, whatever its certificate's names or dates.
func TrustPin(fp Fingerprint) Trust {
	return Trust{}.AndPin(fp)
}

// TrustPinString trusts the key with the text fingerprint s
// ("sha256:<64 hex>"). Errors are of kind InvalidFingerprint.
func TrustPinString(s string) (Trust, error) {
	fp, err := ParseFingerprint(s)
	if err != nil {
		return Trust{}, err
	}
	return TrustPin(fp), nil
}

// TrustAnchor trusts cert as a certificate authority: a peer is accepted
// if its chain reaches cert and, for a server, names the dialled host.
func TrustAnchor(cert *x509.Certificate) Trust {
	return Trust{}.AndAnchor(cert)
}

// TrustAnchorFile trusts every certificate in the PEM file at path as an
// anchor. Other PEM blocks are ignored. Errors name the file: kind Io when
// it cannot be read, kind Tls when it holds no usable certificate.
func TrustAnchorFile(path string) (Trust, error) {
	return Trust{}.AndAnchorFile(path)
}

// AndPin returns t with fp pinned as well. Pinning a fingerprint twice
// changes nothing.
func (t Trust) AndPin(fp Fingerprint) Trust {
	if slices.Contains(t.pins, fp) {
		return t
	}
	t.pins = append(slices.Clip(t.pins), fp)
	return t
}

// AndAnchor returns t with cert as an anchor as well. Adding the same
// certificate twice changes nothing.
func (t Trust) AndAnchor(cert *x509.Certificate) Trust {
	return t.withAnchors([]*x509.Certificate{cert})
}

// AndAnchorFile returns t with every certificate in the PEM file at path
// as an anchor as well; errors as for TrustAnchorFile.
func (t Trust) AndAnchorFile(path string) (Trust, error) {
	data, err := readFileCapped(path, maxAnchorFileBytes)
	if err != nil {
		return Trust{}, fileError(errs.KindIO, "cannot read anchor file", path, err)
	}
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != pemCertificate {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return Trust{}, fileError(errs.KindTLS, "cannot read anchor file", path,
				fmt.Errorf("certificate %d: %w", len(certs)+1, err))
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return Trust{}, errs.New(errs.KindTLS, "anchor file %s holds no PEM CERTIFICATE block", path)
	}
	return t.withAnchors(certs), nil
}

// IsEmpty reports whether t trusts nothing (no pins, no anchors).
func (t Trust) IsEmpty() bool {
	return len(t.pins) == 0 && len(t.anchors) == 0 && t.pinSet == nil
}

// Key returns a string that is equal for two Trusts exactly when they
// hold the same pins and the same anchors, in whatever order they were
// added. Connection pools use it to keep differently trusted connections
// apart.
func (t Trust) Key() string {
	entries := make([]string, 0, len(t.pins)+len(t.anchors))
	for _, pin := range t.pins {
		entries = append(entries, "pin="+pin.String())
	}
	for _, anchor := range t.anchors {
		digest := sha256.Sum256(anchor.Raw)
		entries = append(entries, "anchor=sha256:"+hex.EncodeToString(digest[:]))
	}
	if t.pinSet != nil {
		entries = append(entries, t.pinSet.key())
	}
	slices.Sort(entries)
	return strings.Join(entries, ",")
}

// pinned reports whether fp is one of t's pins.
func (t Trust) pinned(fp Fingerprint) bool {
	return slices.Contains(t.pins, fp) || (t.pinSet != nil && t.pinSet.Contains(fp))
}

// pinCount is how many keys t pins now, its pin set's included.
func (t Trust) pinCount() int {
	if t.pinSet != nil {
		return len(t.pins) + t.pinSet.Len()
	}
	return len(t.pins)
}

// withAnchors returns a copy of t with certs added (duplicates skipped)
// and a fresh pool, leaving t's pool untouched for its other holders.
func (t Trust) withAnchors(certs []*x509.Certificate) Trust {
	anchors := slices.Clip(t.anchors)
	for _, cert := range certs {
		known := slices.ContainsFunc(anchors, func(a *x509.Certificate) bool { return bytes.Equal(a.Raw, cert.Raw) })
		if !known {
			anchors = append(anchors, cert)
		}
	}
	if len(anchors) == len(t.anchors) {
		return t
	}
	pool := x509.NewCertPool()
	for _, anchor := range anchors {
		pool.AddCert(anchor)
	}
	t.anchors, t.pool = anchors, pool
	return t
}
