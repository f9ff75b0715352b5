package identity

import (
	"crypto/tls"
	"sync/atomic"
)

// Verification is the dialler's record of one handshake's certificate
// check: which key the server presented and whether it was trusted.
//
// quic-go does not carry the error returned by a TLS callback into the
// error its Dial returns, so ClientConfig's callback writes the verdict
// here and the dialler reads it after a failed handshake to report
// Untrusted with the fingerprint that answered. It is safe for concurrent
// use. A Verification belongs to one handshake; build a new config for
// each dial.
type Verification struct {
	outcome atomic.Pointer[verificationOutcome]
}

type verificationOutcome struct {
	presented    Fingerprint
	hasPresented bool
	err          error
}

// Presented returns the fingerprint of the leaf the server presented, and
// false if the check has not run (e.g. the handshake failed earlier). The
// key is the one presented, not yet proved: its CertificateVerify is
// checked after this verdict, and a forged one fails the handshake.
func (v *Verification) Presented() (Fingerprint, bool) {
	if o := v.outcome.Load(); o != nil {
		return o.presented, o.hasPresented
	}
	return Fingerprint{}, false
}

// Err returns why the server was refused: an *UntrustedError when its key
// is not trusted, another error (e.g. a wrong ALPN protocol) otherwise. It
// is nil when the check accepted the server or has not run.
func (v *Verification) Err() error {
	if o := v.outcome.Load(); o != nil {
		return o.err
	}
	return nil
}

// record stores the verdict on cs and returns err for the TLS stack.
func (v *Verification) record(cs tls.ConnectionState, err error) error {
	fp, ok := PeerFingerprint(cs)
	v.outcome.Store(&verificationOutcome{presented: fp, hasPresented: ok, err: err})
	return err
}
