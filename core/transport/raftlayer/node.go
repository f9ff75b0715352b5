package raftlayer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// ALPN is the application protocol of the Raft port.
const ALPN = "weida-raft/0"

// Stream and connection error codes of the Raft port.
const (
	codeClosed        quic.StreamErrorCode      = 0
	codeUnknownGroup  quic.StreamErrorCode      = 1
	codeGroupBusy     quic.StreamErrorCode      = 2
	codeBadPreamble   quic.StreamErrorCode      = 3
	closeShutdown     quic.ApplicationErrorCode = 0
	closeFileDiffers  quic.ApplicationErrorCode = 1
	closeBadHello     quic.ApplicationErrorCode = 2
	closeBadFrame     quic.ApplicationErrorCode = 3
	preambleVersion                             = 0
	groupIDBytes                                = 32
	digestBytes                                 = 32
	helloBytes                                  = 1 + digestBytes
	streamPreambleLen                           = 1 + groupIDBytes
)

// Bounds a peer cannot push past.
const (
	// preambleTimeout is how long a new stream or hello may take to name
	// its group or digest before it is reset.
	preambleTimeout = 5 * time.Second
	// acceptBacklog is how many streams of one group wait for Accept.
	acceptBacklog = 64
	// handshakeTimeout bounds a Raft connection's QUIC handshake.
	handshakeTimeout = 5 * time.Second
	// idleTimeout ends a connection Raft has stopped using (its heartbeats
	// keep a live one busy).
	idleTimeout = 30 * time.Second
)

// GroupID names one Raft group (the queue id: SHA-256 of its path).
type GroupID [groupIDBytes]byte

// Config describes one node's place in the cluster.
type Config struct {
	// Identity is this node's key; Members must hold it.
	Identity *identity.Identity
	// Members maps each member's Raft address ("host:port") to its key,
	// this node's included.
	Members map[string]identity.Fingerprint
	// Digest is the digest of the cluster file this node read.
	Digest [digestBytes]byte
	// Log hears refusals and connection failures (nil: discarded).
	Log *slog.Logger
}

// Node is one member's Raft port: the listener and the connections to the
// other members, shared by every Group.
type Node struct {
	cfg       Config
	transport *quic.Transport
	listener  *quic.Listener
	quicConf  *quic.Config
	log       *slog.Logger
	ctx       context.Context
	cancel    context.CancelFunc

	mu     sync.Mutex
	groups map[GroupID]*Group
	conns  map[identity.Fingerprint]*quic.Conn // the verified connection Dial uses per member
	live   map[*quic.Conn]struct{}             // every verified connection, for Close
	wg     sync.WaitGroup
	// refusals bounds the lines about members refused for their file.
	refusals peerGates
	// stopped: members whose latest connection they closed in order, and
	// that have not connected since.
	stopped map[identity.Fingerprint]bool
}

// Listen opens the Raft port at addr (UDP "host:port").
func Listen(addr string, cfg Config) (*Node, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("raft port %s: %w", addr, err)
	}
	n, err := Serve(pc, cfg)
	if err != nil {
		pc.Close()
	}
	return n, err
}

// Serve runs the Raft port on pc, which the node owns from then on.
func Serve(pc net.PacketConn, cfg Config) (*Node, error) {
	self := cfg.Identity.Fingerprint()
	pins := identity.TrustByAddress()
	isMember := false
	for _, fp := range cfg.Members {
		pins = pins.AndPin(fp)
		isMember = isMember || fp == self
	}
	if !isMember {
		return nil, fmt.Errorf("raft port: this node's key %s is not among the %d members", self, len(cfg.Members))
	}
	tlsConf, err := identity.ServerConfig(cfg.Identity, identity.ClientTrusted, pins, ALPN)
	if err != nil {
		return nil, err
	}
	resetKey, err := statelessResetKey(cfg.Identity)
	if err != nil {
		return nil, err
	}
	qc := &quic.Config{HandshakeIdleTimeout: handshakeTimeout, MaxIdleTimeout: idleTimeout, KeepAlivePeriod: idleTimeout / 3,
		MaxIncomingStreams: 1024, MaxIncomingUniStreams: -1}
	tr := &quic.Transport{Conn: pc, StatelessResetKey: resetKey}
	ln, err := tr.Listen(tlsConf, qc)
	if err != nil {
		return nil, fmt.Errorf("raft port %s: %w", pc.LocalAddr(), err)
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{cfg: cfg, transport: tr, listener: ln, quicConf: qc, log: log, ctx: ctx, cancel: cancel,
		groups: make(map[GroupID]*Group), conns: make(map[identity.Fingerprint]*quic.Conn), live: make(map[*quic.Conn]struct{}),
		stopped: make(map[identity.Fingerprint]bool)}
	n.wg.Add(1)
	go n.acceptConns()
	return n, nil
}

// Addr is the port's bound address.
func (n *Node) Addr() net.Addr { return n.listener.Addr() }

// Close ends every connection and group; Accept and Dial fail after it.
func (n *Node) Close() error {
	n.cancel()
	err := n.listener.Close()
	n.mu.Lock()
	// Two members dialling each other at once leave two connections, of
	// which conns names one: close every one.
	for c := range n.live {
		c.CloseWithError(closeShutdown, shutdownReason)
	}
	for _, g := range n.groups {
		g.shut()
	}
	n.mu.Unlock()
	n.wg.Wait()
	if terr := n.transport.Close(); err == nil {
		err = terr
	}
	// quic-go leaves a socket it was handed open; the node owns it.
	if perr := n.transport.Conn.Close(); err == nil && !errors.Is(perr, net.ErrClosed) {
		err = perr
	}
	return err
}

func (n *Node) acceptConns() {
	defer n.wg.Done()
	for {
		c, err := n.listener.Accept(n.ctx)
		if err != nil {
			return
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.serveAccepted(c)
		}()
	}
}

// serveAccepted answers the dialler's hello, then serves its streams.
func (n *Node) serveAccepted(c *quic.Conn) {
	peer, ok := identity.PeerFingerprint(c.ConnectionState().TLS)
	if !ok {
		c.CloseWithError(closeBadHello, "no key")
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, preambleTimeout)
	hello, err := c.AcceptStream(ctx)
	cancel()
	if err != nil {
		c.CloseWithError(closeBadHello, "no hello")
		return
	}
	theirs, err := readHello(hello)
	if err == nil {
		// Ours goes back whatever theirs says: the dialler names both
		// digests in its own error.
		_, err = hello.Write(n.hello())
		hello.Close()
	}
	if err != nil {
		c.CloseWithError(closeBadHello, "bad hello")
		return
	}
	if theirs != n.cfg.Digest {
		if ok, held := n.refusals.allow(peer); ok {
			n.log.Error("raft port: refusing a member that read another cluster file", "member", peer.String(),
				"their_digest", fmt.Sprintf("%x", theirs), "our_digest", fmt.Sprintf("%x", n.cfg.Digest),
				"lines_held_back", held)
		}
		<-waitOrTimeout(c.Context(), preambleTimeout) // let the dialler read ours and close
		c.CloseWithError(closeFileDiffers, "cluster file differs")
		return
	}
	if n.adopt(peer, c, false) {
		n.serveStreams(c)
	}
}

// adopt makes c the connection Dial uses toward peer. A node closing
// meanwhile closes c at once.
func (n *Node) adopt(peer identity.Fingerprint, c *quic.Conn, serve bool) bool {
	n.mu.Lock()
	if n.ctx.Err() != nil {
		n.mu.Unlock()
		c.CloseWithError(closeShutdown, shutdownReason)
		return false
	}
	n.conns[peer] = c
	delete(n.stopped, peer)
	n.live[c] = struct{}{}
	// Added under mu, after the check: Close cancels before it takes mu,
	// so its Wait never runs while a goroutine is being added.
	n.wg.Add(1)
	if serve {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.serveStreams(c)
		}()
	}
	n.mu.Unlock()
	go func() {
		defer n.wg.Done()
		<-c.Context().Done()
		n.mu.Lock()
		if n.conns[peer] == c {
			delete(n.conns, peer)
			if PeerShutDown(context.Cause(c.Context())) {
				n.stopped[peer] = true
			}
		}
		delete(n.live, c)
		n.mu.Unlock()
	}()
	return true
}

// forget drops c from the connections Dial uses, once it has failed.
func (n *Node) forget(c *quic.Conn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for key, known := range n.conns {
		if known == c {
			delete(n.conns, key)
		}
	}
}

// serveStreams hands each stream of c to the group its preamble names.
func (n *Node) serveStreams(c *quic.Conn) {
	for {
		s, err := c.AcceptStream(n.ctx)
		if err != nil {
			return
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.route(c, s)
		}()
	}
}

func (n *Node) route(c *quic.Conn, s *quic.Stream) {
	var pre [streamPreambleLen]byte
	s.SetReadDeadline(time.Now().Add(preambleTimeout))
	if _, err := io.ReadFull(s, pre[:]); err != nil || StreamKind(pre[0]) > KindFetch {
		reset(s, codeBadPreamble)
		return
	}
	s.SetReadDeadline(time.Time{})
	var id GroupID
	copy(id[:], pre[1:])
	n.mu.Lock()
	g := n.groups[id]
	n.mu.Unlock()
	if g == nil {
		reset(s, codeUnknownGroup)
		return
	}
	if StreamKind(pre[0]) == KindFetch {
		h := g.fetchHandler()
		if h == nil {
			reset(s, codeUnknownGroup)
			return
		}
		peer, _ := identity.PeerFingerprint(c.ConnectionState().TLS)
		h(&Stream{streamConn: streamConn{Stream: s, conn: c}, peer: peer})
		return
	}
	if !g.offer(streamConn{Stream: s, conn: c}) {
		reset(s, codeGroupBusy)
	}
}

func reset(s *quic.Stream, code quic.StreamErrorCode) {
	s.CancelRead(code)
	s.CancelWrite(code)
}

func (n *Node) hello() []byte {
	return append([]byte{preambleVersion}, n.cfg.Digest[:]...)
}

func readHello(s *quic.Stream) ([digestBytes]byte, error) {
	var buf [helloBytes]byte
	s.SetReadDeadline(time.Now().Add(preambleTimeout))
	_, err := io.ReadFull(s, buf[:])
	var d [digestBytes]byte
	if err == nil && buf[0] != preambleVersion {
		err = fmt.Errorf("hello version %d", buf[0])
	}
	copy(d[:], buf[1:])
	return d, err
}

func waitOrTimeout(ctx context.Context, d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		close(done)
	}()
	return done
}

// connTo returns the verified connection to the member at address,
// dialling it (and exchanging hellos) when there is none.
func (n *Node) connTo(ctx context.Context, address string) (*quic.Conn, error) {
	key, ok := n.cfg.Members[address]
	if !ok {
		return nil, fmt.Errorf("raft port: %s is not a member's raft address", address)
	}
	n.mu.Lock()
	c := n.conns[key]
	n.mu.Unlock()
	if c != nil && c.Context().Err() == nil {
		return c, nil
	}
	c, err := n.dial(ctx, address, key)
	if err != nil {
		return nil, err
	}
	if !n.adopt(key, c, true) {
		return nil, errClosed
	}
	return c, nil
}

func (n *Node) dial(ctx context.Context, address string, key identity.Fingerprint) (*quic.Conn, error) {
	addr, err := identity.ParseAddress("weida://" + key.String() + "@" + address + "/raft")
	if err != nil {
		return nil, fmt.Errorf("raft port: member address %s: %w", address, err)
	}
	tlsConf, verification, err := identity.ClientConfig(addr, identity.TrustByAddress(), n.cfg.Identity, ALPN)
	if err != nil {
		return nil, err
	}
	udp, err := net.ResolveUDPAddr("udp", address)
	if err != nil {
		return nil, fmt.Errorf("raft port: member address %s: %w", address, err)
	}
	c, err := n.transport.Dial(ctx, udp, tlsConf, n.quicConf)
	if err != nil {
		if v := verification.Err(); v != nil {
			return nil, fmt.Errorf("raft port: member %s at %s: %w", key, address, v)
		}
		return nil, fmt.Errorf("raft port: dialling member %s at %s: %w", key, address, err)
	}
	if err := n.sayHello(ctx, c, key); err != nil {
		return nil, err
	}
	return c, nil
}

// sayHello sends this node's digest and compares the answer.
func (n *Node) sayHello(ctx context.Context, c *quic.Conn, key identity.Fingerprint) error {
	fail := func(code quic.ApplicationErrorCode, err error) error {
		c.CloseWithError(code, "hello failed")
		return err
	}
	s, err := c.OpenStreamSync(ctx)
	if err != nil {
		return fail(closeBadHello, fmt.Errorf("raft port: member %s: %w", key, err))
	}
	if _, err := s.Write(n.hello()); err != nil {
		return fail(closeBadHello, fmt.Errorf("raft port: member %s: %w", key, err))
	}
	s.Close()
	theirs, err := readHello(s)
	if err != nil {
		return fail(closeBadHello, fmt.Errorf("raft port: member %s did not answer the hello: %w", key, err))
	}
	if theirs != n.cfg.Digest {
		return fail(closeFileDiffers, fmt.Errorf("raft port: member %s read another cluster file (digest %x, ours %x)", key, theirs, n.cfg.Digest))
	}
	return nil
}

var errClosed = errors.New("raft port: closed")
