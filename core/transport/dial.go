package transport

import (
	"context"
	"errors"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// cryptoNoALPN is QUIC CRYPTO_ERROR 0x100 + TLS alert 120 (no_application_protocol).
const cryptoNoALPN = 0x178

// Dial connects to addr, verifies the peer under trust (the address's
// fingerprint overrides it), presents id when not nil, runs the HELLO
// exchange and returns only a negotiated connection. h receives what the
// peer opens toward us (fan-out copies, cursors).
//
// Local addresses (weida+inproc://, weida+unix://) are dialled over their
// transport; trust and id do not apply there: the kernel proves a socket
// peer, and an in-process peer is this process.
func Dial(ctx context.Context, addr identity.Address, trust identity.Trust, id *identity.Identity, cfg Config, h Handler) (*Conn, error) {
	cfg = cfg.withDefaults()
	switch addr.Scheme {
	case identity.SchemeQUIC:
	case identity.SchemeInproc:
		return dialInproc(ctx, addr, cfg, h)
	case identity.SchemeUnix:
		return dialUnix(ctx, addr, cfg, h)
	default:
		return nil, errs.New(errs.KindInvalidAddress, "%s: the scheme %s is not supported", addr, addr.Scheme)
	}
	tlsConf, verification, err := identity.ClientConfig(addr, trust, id, wire.ALPN)
	if err != nil {
		return nil, err
	}
	tracker := newReceiptTracker(true)
	qc := cfg.quicConfig(true)
	qc.Tracer = func(context.Context, bool, quic.ConnectionID) qlogwriter.Trace { return tracker }
	conn, err := quic.DialAddr(ctx, addr.HostPort(), tlsConf, qc)
	if err != nil {
		return nil, dialError(ctx, addr, verification, err)
	}
	c := newConn(conn, cfg, true, h, tracker)
	c.path = addr.Path
	if err := c.start(ctx); err != nil {
		c.Close(wire.CodeNoError, "")
		return nil, err
	}
	return c, nil
}

// dialError names why a handshake failed: the verifier's verdict first
// (Untrusted carries the key that answered), then ALPN, then the rest.
func dialError(ctx context.Context, addr identity.Address, v *identity.Verification, err error) error {
	if verr := v.Err(); verr != nil {
		var untrusted *identity.UntrustedError
		if errors.As(verr, &untrusted) {
			return &errs.Error{Kind: errs.KindUntrusted, Msg: untrusted.Error(), Err: untrusted}
		}
		return errs.Wrap(errs.KindTLS, verr, "TLS handshake with "+addr.HostPort()+" failed")
	}
	if ctx.Err() != nil {
		return errs.Wrap(errs.KindCanceled, ctx.Err(), "connect abandoned")
	}
	var te *quic.TransportError
	if errors.As(err, &te) && uint64(te.ErrorCode) == cryptoNoALPN {
		return errs.Wrap(errs.KindTLS, err, addr.HostPort()+" does not speak "+wire.ALPN)
	}
	if errors.As(err, &te) && te.ErrorCode.IsCryptoError() {
		return errs.Wrap(errs.KindTLS, err, "TLS handshake with "+addr.HostPort()+" failed")
	}
	e := lossError(err)
	if e.Kind == errs.KindConnectionLost {
		e.Kind = errs.KindNotConnected
	}
	e.Msg = "cannot connect to " + addr.HostPort() + ": " + e.Msg
	return e
}
