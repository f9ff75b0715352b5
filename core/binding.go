package weida

import (
	"net"
	"strconv"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// Binding is one QUIC socket, in-process bus or unix socket serving the
// paths of its Listener.
type Binding struct {
	rt *Runtime
	tl *transport.Listener
	id *Identity // nil on a local transport: the kernel proves peers there, or nothing does
}

// BindOption configures a binding.
type BindOption func(*bindOptions)

type bindOptions struct {
	auth  identity.ClientAuth
	trust Trust
}

// RequireClient makes the binding accept only clients that present a
// certificate trusted by trust (pinned or anchored); trust must not be empty.
func RequireClient(trust Trust) BindOption {
	return func(o *bindOptions) { o.auth, o.trust = identity.ClientTrusted, trust }
}

// RequireAnyClientKey makes the binding require a client certificate with
// any key (the SSH/WireGuard model): the key is proved, not judged.
func RequireAnyClientKey() BindOption {
	return func(o *bindOptions) { o.auth = identity.ClientAnyKey }
}

// BindQUIC serves the listener's paths on addr ("ip:port"; port 0 lets the
// kernel choose) with identity id. Clients that present no certificate are
// accepted as anonymous unless an option requires one.
func (l *Listener) BindQUIC(addr string, id *Identity, opts ...BindOption) (*Binding, error) {
	if err := l.bindable(); err != nil {
		return nil, err
	}
	var o bindOptions
	for _, opt := range opts {
		opt(&o)
	}
	tlsConf, err := identity.ServerConfig(id, o.auth, o.trust, wire.ALPN)
	if err != nil {
		return nil, err
	}
	tl, err := transport.Listen(addr, tlsConf, l.rt.tcfg, router{l: l})
	if err != nil {
		return nil, err
	}
	return l.rt.addBinding(tl, id), nil
}

// LocalAddr is the bound "ip:port" (IPv6 bracketed), with the real port;
// the bus name or socket path of a local binding.
func (b *Binding) LocalAddr() string {
	if name := b.tl.LocalName(); name != "" {
		return name
	}
	a := b.tl.Addr()
	return net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port))
}

// Fingerprint is the key this binding proves; the zero Fingerprint (see
// HasFingerprint) on a local binding, which proves no key.
func (b *Binding) Fingerprint() Fingerprint {
	if b.id == nil {
		return Fingerprint{}
	}
	return b.id.Fingerprint()
}

// HasFingerprint reports whether the binding proves a key: true over QUIC,
// false on local transports.
func (b *Binding) HasFingerprint() bool { return b.id != nil }

// URL is the dialling address of path on this binding: it names the key,
// so it is a client's whole configuration.
func (b *Binding) URL(path string) string {
	if b.id == nil {
		return b.localURL(path)
	}
	a := b.tl.Addr()
	addr := identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: b.id.Fingerprint(), HasFingerprint: true,
		Host: a.IP.String(), Port: uint16(a.Port), Path: path}
	return addr.String()
}

// Close stops serving: every connection of this binding is closed with
// SHUTDOWN.
func (b *Binding) Close() { b.close(wire.CodeShutdown, "binding closed") }

func (b *Binding) close(code wire.AppCode, reason string) {
	b.rt.mu.Lock()
	delete(b.rt.bindings, b)
	b.rt.mu.Unlock()
	b.tl.Close(code, reason)
}
