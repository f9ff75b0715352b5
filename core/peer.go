package weida

import (
	"context"
	"sync"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
)

// poolKey identifies a pooled connection: one per dialled endpoint path and
// trust terms (PROTOCOL.md §2.6), so two paths never share a window.
type poolKey struct {
	addr     string // canonical URL, fingerprint and path included
	trust    string
	clientID string
}

type pooledConn struct {
	conn *transport.Conn
	refs int
}

// dial returns a live pooled connection for addr, dialling when none is.
func (rt *Runtime) dial(ctx context.Context, addr Address, trust Trust, id *Identity) (*transport.Conn, error) {
	key := poolKey{addr: addr.String(), trust: trust.Key()}
	if id != nil {
		key.clientID = id.Fingerprint().String()
	}
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil, errs.New(errs.KindRuntime, "the runtime was shut down")
	}
	if pc, ok := rt.pool[key]; ok && pc.conn.Err() == nil {
		pc.refs++
		rt.mu.Unlock()
		return pc.conn, nil
	}
	rt.mu.Unlock()

	conn, err := transport.Dial(ctx, addr, trust, id, rt.tcfg, router{})
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		go conn.Close(0, "runtime shutdown")
		return nil, errs.New(errs.KindRuntime, "the runtime was shut down")
	}
	if pc, ok := rt.pool[key]; ok && pc.conn.Err() == nil {
		// Another endpoint dialled the same path meanwhile: share its connection.
		go conn.Close(0, "duplicate connection")
		pc.refs++
		return pc.conn, nil
	}
	rt.pool[key] = &pooledConn{conn: conn, refs: 1}
	return conn, nil
}

// Peer is the raw (L0) dialling endpoint: it connects to paths and opens
// one-way transfers and exchanges on them, round-robin over live
// connections.
type Peer struct {
	rt    *Runtime
	trust Trust
	id    *Identity

	mu    sync.Mutex
	slots []*transport.Conn
	next  int
}

// PeerOption configures a dialling endpoint.
type PeerOption func(*Peer)

// WithClientIdentity presents id to servers (mutual TLS); without it the
// endpoint is anonymous.
func WithClientIdentity(id *Identity) PeerOption { return func(p *Peer) { p.id = id } }

// Peer creates a raw dialling endpoint that verifies servers under trust.
func (rt *Runtime) Peer(trust Trust, opts ...PeerOption) *Peer {
	p := &Peer{rt: rt, trust: trust}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Connect dials url (weida://[sha256:…@]host:port/path) and adds it as a
// slot. It returns once the connection is negotiated. A key that is not
// trusted fails with Untrusted naming the key that answered.
func (p *Peer) Connect(ctx context.Context, url string) error {
	addr, err := identity.ParseAddress(url)
	if err != nil {
		return err
	}
	conn, err := p.rt.dial(ctx, addr, p.trust, p.id)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.slots = append(p.slots, conn)
	p.mu.Unlock()
	return nil
}

// PeerCount is the number of live connections.
func (p *Peer) PeerCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, c := range p.slots {
		if c.Err() == nil {
			n++
		}
	}
	return n
}

// pick chooses the next live connection round-robin.
func (p *Peer) pick() (*transport.Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.slots) == 0 {
		return nil, errs.New(errs.KindNotConnected, "not connected: call Connect first")
	}
	var last error
	for range p.slots {
		c := p.slots[p.next%len(p.slots)]
		p.next++
		if err := c.Err(); err != nil {
			last = err
			continue
		}
		return c, nil
	}
	return nil, last
}

// Open opens a one-way transfer to the next live connection's path.
func (p *Peer) Open(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, error) {
	c, err := p.pick()
	if err != nil {
		return nil, err
	}
	h := meta.header(c.Path())
	out, err := c.OpenUni(ctx, &h)
	if err != nil {
		return nil, err
	}
	return &OutgoingTransfer{out: out}, nil
}

// OpenBi opens an exchange: write the request to the OutgoingTransfer and
// Finish it, and read the reply from the ReplyStream (concurrently for
// large requests: both halves stream at once).
func (p *Peer) OpenBi(ctx context.Context, meta TransferMeta) (*OutgoingTransfer, *ReplyStream, error) {
	c, err := p.pick()
	if err != nil {
		return nil, nil, err
	}
	h := meta.header(c.Path())
	out, reply, err := c.OpenBi(ctx, &h)
	if err != nil {
		return nil, nil, err
	}
	return &OutgoingTransfer{out: out}, &ReplyStream{half: reply}, nil
}
