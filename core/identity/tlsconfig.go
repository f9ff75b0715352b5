package identity

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// maxALPNBytes is the longest protocol name TLS can carry (RFC 7301).
const maxALPNBytes = 255

// ClientAuth is what an accepting side demands of a dialling side's
// certificate (SEMANTICS.md §8.1).
type ClientAuth int

const (
	// ClientAnonymousAllowed requests but does not require a client
	// certificate. A client that presents one has its CertificateVerify
	// checked and is known by its fingerprint; one that does not is
	// anonymous. This is the default.
	ClientAnonymousAllowed ClientAuth = iota
	// ClientTrusted requires a certificate the given Trust accepts (a pin,
	// or a chain to an anchor; names are not checked for clients).
	ClientTrusted
	// ClientAnyKey requires a certificate with any key (the SSH/WireGuard
	// model): no dates or issuers are judged, the chain is bounded to 8
	// certificates and 32 KiB, and the key must sign the handshake.
	ClientAnyKey
)

// String names the mode.
func (a ClientAuth) String() string {
	switch a {
	case ClientAnonymousAllowed:
		return "ClientAnonymousAllowed"
	case ClientTrusted:
		return "ClientTrusted"
	case ClientAnyKey:
		return "ClientAnyKey"
	}
	return fmt.Sprintf("ClientAuth(%d)", int(a))
}

// ClientConfig builds the dialling side's TLS 1.3 configuration for addr,
// a weida:// address. The server is accepted per PROTOCOL.md §2.4: the
// address fingerprint if it names one, else a pin in trust, else a chain to
// an anchor in trust that names addr.Host. With neither a fingerprint nor
// trust it refuses (kind Tls) before any packet is sent. id, when not nil,
// is presented as the client certificate. The Verification reports the
// verdict of the one handshake the config is used for.
func ClientConfig(addr Address, trust Trust, id *Identity, alpn string) (*tls.Config, *Verification, error) {
	if addr.Scheme != SchemeQUIC {
		return nil, nil, errs.New(errs.KindInvalidAddress,
			"invalid address %s: only weida:// addresses use TLS", quote(addr.String()))
	}
	if !addr.HasFingerprint && trust.IsEmpty() {
		return nil, nil, errs.New(errs.KindTLS,
			"cannot dial %s: it names no fingerprint and no trust is configured; put the server's fingerprint in the URL "+
				"(weida://sha256:<hex>@host:port/path) or configure a pin or an anchor", addr)
	}
	if err := checkALPN(alpn); err != nil {
		return nil, nil, err
	}
	if id != nil && !id.usable() {
		return nil, nil, errs.New(errs.KindTLS, "the client identity holds no certificate; build it with Generate, FromPEM or LoadPEMFile")
	}
	policy := peerPolicy{
		expected:    addr.Fingerprint,
		hasExpected: addr.HasFingerprint,
		trust:       trust,
		host:        addr.Host,
		usage:       x509.ExtKeyUsageServerAuth,
	}
	verification := &Verification{}
	config := &tls.Config{
		MinVersion: tls.VersionTLS13,
		MaxVersion: tls.VersionTLS13,
		NextProtos: []string{alpn},
		ServerName: addr.Host,
		// Go's built-in check knows only WebPKI; §2.4 is implemented by
		// VerifyConnection instead. Go still verifies CertificateVerify.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			err := checkNegotiatedALPN(cs, alpn)
			if err == nil {
				err = policy.check(cs.PeerCertificates)
			}
			return verification.record(cs, err)
		},
	}
	if id != nil {
		cert := id.TLSCertificate()
		// Always present the identity: Go's default would withhold a
		// certificate that matches none of the request's CA names, but
		// a pinned client's certificate matches no CA by design.
		config.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return &cert, nil
		}
	}
	return config, verification, nil
}

// ServerConfig builds the accepting side's TLS 1.3 configuration: id is
// the server certificate, auth and clientTrust judge clients. clientTrust
// must be non-empty under ClientTrusted and empty otherwise (it would be
// ignored, which would mislead). The CertificateRequest names no CAs so a
// pinned client is not discouraged from presenting its key. Errors are of
// kind Tls.
func ServerConfig(id *Identity, auth ClientAuth, clientTrust Trust, alpn string) (*tls.Config, error) {
	if !id.usable() {
		return nil, errs.New(errs.KindTLS, "a server needs an identity; build it with Generate, GenerateFor, FromPEM or LoadOrCreate")
	}
	if err := checkALPN(alpn); err != nil {
		return nil, err
	}
	var tlsAuth tls.ClientAuthType
	switch auth {
	case ClientAnonymousAllowed, ClientAnyKey:
		if !clientTrust.IsEmpty() {
			return nil, errs.New(errs.KindTLS, "a client trust is only used with ClientTrusted, not %s", auth)
		}
		tlsAuth = tls.RequestClientCert
		if auth == ClientAnyKey {
			tlsAuth = tls.RequireAnyClientCert
		}
	case ClientTrusted:
		if clientTrust.IsEmpty() {
			return nil, errs.New(errs.KindTLS, "requiring trusted clients needs a non-empty client trust (a pin or an anchor)")
		}
		tlsAuth = tls.RequireAnyClientCert
	default:
		return nil, errs.New(errs.KindTLS, "unknown client authentication mode %s", auth)
	}
	policy := peerPolicy{trust: clientTrust, usage: x509.ExtKeyUsageClientAuth}
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		MaxVersion:   tls.VersionTLS13,
		NextProtos:   []string{alpn},
		Certificates: []tls.Certificate{id.TLSCertificate()},
		// Verification of client chains happens in VerifyConnection, so
		// ClientCAs stays empty and no CA names are sent.
		ClientAuth: tlsAuth,
		// Nothing is resumed: identity is fixed per full handshake.
		SessionTicketsDisabled: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if err := checkNegotiatedALPN(cs, alpn); err != nil {
				return err
			}
			return checkClient(cs.PeerCertificates, auth, policy)
		},
	}, nil
}

// checkClient judges a client's chain under auth.
func checkClient(chain []*x509.Certificate, auth ClientAuth, policy peerPolicy) error {
	switch {
	case auth == ClientAnonymousAllowed:
		return nil
	case len(chain) == 0:
		// crypto/tls already refuses this under RequireAnyClientCert.
		return errs.New(errs.KindTLS, "the client presented no certificate, and this endpoint requires one")
	case auth == ClientAnyKey:
		return checkAnyKeyChain(chain)
	}
	return policy.check(chain)
}

// checkNegotiatedALPN refuses a connection that did not settle on alpn:
// Go completes a handshake without ALPN when the peer offers none.
func checkNegotiatedALPN(cs tls.ConnectionState, alpn string) error {
	if cs.NegotiatedProtocol != alpn {
		return errs.New(errs.KindTLS, "the peer negotiated the application protocol %s, not %s",
			quote(cs.NegotiatedProtocol), quote(alpn))
	}
	return nil
}

func checkALPN(alpn string) error {
	if alpn == "" || len(alpn) > maxALPNBytes {
		return errs.New(errs.KindTLS, "the ALPN protocol name %s must be 1..%d bytes", quote(alpn), maxALPNBytes)
	}
	return nil
}
