package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"syscall"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// Listener accepts weida connections on one UDP address, or on a local
// transport's address (an in-process bus, a unix socket).
type Listener struct {
	cfg     Config
	udp     net.PacketConn // QUIC only, as are tr and ln
	tr      *quic.Transport
	ln      *quic.Listener
	local   localBinder // local transports only
	handler Handler

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	perPeer  map[identity.Fingerprint]int
	draining bool
	wg       sync.WaitGroup
}

// Listen binds addr ("ip:port"; port 0 lets the kernel choose) with a
// server TLS configuration from identity.ServerConfig, and serves every
// accepted connection's streams to h. Its stateless reset key derives from
// the identity's key (resetkey.go): listening again with the same identity
// on the same address resets the previous run's connections at their next
// packet.
func Listen(addr string, tlsConf *tls.Config, cfg Config, h Handler) (*Listener, error) {
	cfg = cfg.withDefaults()
	udpAddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, errs.Wrap(errs.KindInvalidAddress, err, "cannot bind "+addr)
	}
	udp, err := net.ListenUDP("udp", udpAddr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, errs.Wrap(errs.KindAddressInUse, err, "cannot bind "+addr)
		}
		return nil, errs.Wrap(errs.KindIO, err, "cannot bind "+addr)
	}
	qc := cfg.quicConfig(false)
	qc.Tracer = func(context.Context, bool, quic.ConnectionID) qlogwriter.Trace { return newReceiptTracker(false) }
	tr := &quic.Transport{Conn: udp, StatelessResetKey: statelessResetKey(tlsConf)}
	ln, err := tr.Listen(tlsConf, qc)
	if err != nil {
		_ = udp.Close()
		return nil, errs.Wrap(errs.KindIO, err, "cannot listen on "+addr)
	}
	l := &Listener{cfg: cfg, udp: udp, tr: tr, ln: ln, handler: h,
		conns: make(map[*Conn]struct{}), perPeer: make(map[identity.Fingerprint]int)}
	l.wg.Add(1)
	go l.acceptLoop()
	return l, nil
}

// localBinder is a bound local address that hands over dialled links.
type localBinder interface {
	// accept returns the next dialled link; an error means unbound.
	accept() (localLink, error)
	close()
	addr() string
	scheme() identity.Scheme
}

// listenLocal serves the links b accepts.
func listenLocal(b localBinder, cfg Config, h Handler) *Listener {
	l := &Listener{cfg: cfg.withDefaults(), local: b, handler: h,
		conns: make(map[*Conn]struct{}), perPeer: make(map[identity.Fingerprint]int)}
	l.wg.Add(1)
	go l.acceptLocalLoop()
	return l
}

// Addr is the bound UDP address (with the real port when 0 was asked for);
// nil on a local transport (see LocalName).
func (l *Listener) Addr() *net.UDPAddr {
	if l.udp == nil {
		return nil
	}
	return l.udp.LocalAddr().(*net.UDPAddr)
}

// LocalName is the bus name or socket path of a local listener; empty
// over QUIC.
func (l *Listener) LocalName() string {
	if l.local == nil {
		return ""
	}
	return l.local.addr()
}

// LocalAddress is the dialling address of path on a local listener; false
// over QUIC.
func (l *Listener) LocalAddress(path string) (identity.Address, bool) {
	if l.local == nil {
		return identity.Address{}, false
	}
	a := identity.Address{Scheme: l.local.scheme(), Path: path}
	if a.Scheme == identity.SchemeInproc {
		a.Bus = l.local.addr()
	} else {
		a.SocketPath = l.local.addr()
	}
	return a, true
}

func (l *Listener) acceptLocalLoop() {
	defer l.wg.Done()
	for {
		link, err := l.local.accept()
		if err != nil {
			return
		}
		c := newLocalConn(link, l.cfg, false, "", l.handler)
		if code, reason, ok := l.admit(c); !ok {
			link.close(code, reason)
			continue
		}
		l.wg.Add(1)
		go l.serve(c)
	}
}

// serve runs an admitted connection until it ends. A QUIC connection is
// released from the end of quic-go's connection (context.AfterFunc), so an
// idle one keeps no goroutine of its own here.
func (l *Listener) serve(c *Conn) {
	l.started(c, c.start(context.Background()))
	end := func() {
		defer l.wg.Done()
		<-c.Done()
		c.wg.Wait()
		l.release(c)
	}
	if c.local != nil {
		end()
		return
	}
	context.AfterFunc(c.qc.Context(), end)
}

func (l *Listener) acceptLoop() {
	defer l.wg.Done()
	for {
		qc, err := l.ln.Accept(context.Background())
		if err != nil {
			return
		}
		tracker, _ := qc.QlogTrace().(*receiptTracker)
		if tracker == nil {
			tracker = newReceiptTracker(false)
		}
		c := newConn(qc, l.cfg, false, l.handler, tracker)
		if code, reason, ok := l.admit(c); !ok {
			c.closeWith(code, reason)
			continue
		}
		l.wg.Add(1)
		go l.serve(c)
	}
}

// admit enforces max_connections and max_connections_per_peer.
func (l *Listener) admit(c *Conn) (wire.AppCode, string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.draining:
		return wire.CodeShutdown, "shutting down", false
	case len(l.conns) >= l.cfg.MaxConnections:
		return wire.CodeLimitExceeded, "max_connections reached", false
	case c.hasPeer && l.perPeer[c.peer] >= l.cfg.MaxConnectionsPerPeer:
		return wire.CodeLimitExceeded, "max_connections_per_peer reached", false
	}
	l.conns[c] = struct{}{}
	if c.hasPeer {
		l.perPeer[c.peer]++
	}
	return 0, "", true
}

func (l *Listener) release(c *Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if c.hasPeer {
		if l.perPeer[c.peer]--; l.perPeer[c.peer] <= 0 {
			delete(l.perPeer, c.peer)
		}
	}
}

// Conns returns the live accepted connections.
func (l *Listener) Conns() []*Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Conn, 0, len(l.conns))
	for c := range l.conns {
		out = append(out, c)
	}
	return out
}

// StopAdmission refuses new connections (closed with SHUTDOWN) and new
// inbound streams on the existing ones from now on.
func (l *Listener) StopAdmission() {
	l.mu.Lock()
	l.draining = true
	l.mu.Unlock()
	for _, c := range l.Conns() {
		c.StopAdmission()
	}
}

// Close closes every connection with code and the listener, and waits for
// their goroutines.
func (l *Listener) Close(code wire.AppCode, reason string) {
	l.StopAdmission()
	if l.local != nil {
		l.local.close()
	} else {
		_ = l.ln.Close()
	}
	// Concurrently: each may wait briefly for the acknowledgements it owes.
	var closing sync.WaitGroup
	for _, c := range l.Conns() {
		closing.Go(func() { c.closeGraceful(code, reason) })
	}
	closing.Wait()
	l.wg.Wait()
	if l.local == nil {
		_ = l.tr.Close()
		_ = l.udp.Close()
	}
}
