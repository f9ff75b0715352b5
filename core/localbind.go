package weida

import (
	"github.com/weida-go/weida/core/transport"
)

// BindInproc serves the listener's paths on the in-process bus named bus
// (PROTOCOL.md §12): endpoints of any runtime in this process dial it as
// weida+inproc://<bus>/<path>, with no sockets and no TLS. The name is
// unique per process (AddressInUse otherwise), 1..256 bytes, no byte below
// 0x20, no "@" and no "/". An in-process peer has no identity, so the
// binding has no fingerprint.
func (l *Listener) BindInproc(bus string) (*Binding, error) {
	if err := l.bindable(); err != nil {
		return nil, err
	}
	tl, err := transport.ListenInproc(bus, l.rt.tcfg, router{l: l})
	if err != nil {
		return nil, err
	}
	return l.rt.addBinding(tl, nil), nil
}

// addBinding records a new binding so Drain and Shutdown reach it.
func (rt *Runtime) addBinding(tl *transport.Listener, id *Identity) *Binding {
	b := &Binding{rt: rt, tl: tl, id: id}
	rt.mu.Lock()
	rt.bindings[b] = struct{}{}
	rt.mu.Unlock()
	return b
}

// AnswersExchanges implements transport.PathAnswerer. A unix socket
// carries no stream kind, so a stream is an exchange exactly when its path
// is a replier path: one that takes exchanges and nothing else. A path
// that takes both (a raw Acceptor) takes unix streams one way.
func (rt router) AnswersExchanges(path string) bool {
	r := rt.l.lookup(path)
	return r != nil && r.acceptsExchange() && !r.acceptsData()
}

// AnswersExchanges implements transport.PathAnswerer: nothing the bound
// side opens toward a dialling endpoint is an exchange.
func (cr *connRouter) AnswersExchanges(string) bool { return false }

// localURL is the dialling address of path on a local binding: the bus or
// socket it names and nothing else (no key).
func (b *Binding) localURL(path string) string {
	a, _ := b.tl.LocalAddress(path)
	return a.String()
}

// BindUnix serves the listener's paths on the AF_UNIX socket at path
// (PROTOCOL.md §12), dialled as weida+unix://<percent-encoded path>/<path>.
// A stale socket file is unlinked first; a live socket, or a file that is
// not a socket, is AddressInUse. The socket is mode 0600, and peers are
// proved by the kernel (IncomingMeta.LocalPeer), not by a key.
//
// Every message is a stream, and over unix sockets every stream is a
// socket connection of its own (accepted, and closed after its FIN), so a
// small message costs several times what it costs over QUIC on loopback
// (BenchmarkTransportsPush64B): choose it for kernel-proved local peers,
// not for speed; within one process BindInproc is the fast path.
func (l *Listener) BindUnix(path string) (*Binding, error) {
	if err := l.bindable(); err != nil {
		return nil, err
	}
	tl, err := transport.ListenUnix(path, l.rt.tcfg, router{l: l})
	if err != nil {
		return nil, err
	}
	return l.rt.addBinding(tl, nil), nil
}

// LocalPeer is the principal the kernel proved for a local socket peer:
// uid and gid, and the pid where the platform reports one (Linux).
// Authorize on UID, never on PID: a pid is an observation.
type LocalPeer = transport.LocalPeer

// LocalPeer is the kernel-proved principal of the peer that sent this
// transfer over a unix socket; false over QUIC (see Peer) and in process,
// where a peer has no identity. It comes from the transport, never from a
// header.
func (m IncomingMeta) LocalPeer() (LocalPeer, bool) {
	if m.conn == nil {
		return LocalPeer{}, false
	}
	return m.conn.LocalPeer()
}
