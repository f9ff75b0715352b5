package transport

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/identity"
)

// unixBinder is a bound unix socket. Every OS connection opens with a
// local preamble: a control connection starts a group and is answered with
// its token; transfer and reverse connections join the group their token
// names, and only from the same kernel principal.
type unixBinder struct {
	path    string
	ln      *net.UnixListener
	timeout time.Duration // for a new connection's preamble
	links   chan *unixLink
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	// admitting holds a token per connection still reading its preamble:
	// at maxAdmitting the accept loop waits (the kernel's backlog holds
	// what comes next), so silent connections cannot take every descriptor.
	admitting chan struct{}

	mu     sync.Mutex
	groups map[groupToken]*unixLink
}

// ListenUnix binds the unix socket at path (unlinking a stale socket file
// first, refusing a live one or a file that is not a socket; mode 0600) and
// serves every connection dialled to it with h.
func ListenUnix(path string, cfg Config, h Handler) (*Listener, error) {
	cfg = cfg.withDefaults()
	if err := validateSocketPath(path); err != nil {
		return nil, err
	}
	ln, err := listenUnixSocket(path)
	if err != nil {
		return nil, err
	}
	b := &unixBinder{path: path, ln: ln, timeout: cfg.Limits.HelloTimeout,
		links: make(chan *unixLink), done: make(chan struct{}), groups: make(map[groupToken]*unixLink),
		admitting: make(chan struct{}, maxAdmitting)}
	b.wg.Add(1)
	go b.acceptLoop()
	return listenLocal(b, cfg, h), nil
}

// validateSocketPath applies the socket-path rules of PROTOCOL.md §12 by
// parsing the address the socket would be dialled at, so binding and
// dialling judge a path the same way.
func validateSocketPath(path string) error {
	a := identity.Address{Scheme: identity.SchemeUnix, SocketPath: path, Path: "/"}
	_, err := identity.ParseBindAddress(a.String())
	return err
}

// maxAdmitting bounds the connections whose local preamble is still
// awaited (each within the hello timeout).
const maxAdmitting = 256

// acceptBackoffMax bounds the wait between accepts that failed for want of
// a resource (descriptors, memory).
const acceptBackoffMax = time.Second

func (b *unixBinder) acceptLoop() {
	defer b.wg.Done()
	var backoff time.Duration
	for {
		select {
		case b.admitting <- struct{}{}:
		case <-b.done:
			return
		}
		conn, err := b.ln.AcceptUnix()
		if err != nil {
			<-b.admitting
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors (EMFILE, ENFILE) or buffers: the socket
			// still stands, so wait and accept again, as net/http does,
			// instead of leaving it bound and unserved for good.
			backoff = min(max(2*backoff, 5*time.Millisecond), acceptBackoffMax)
			select {
			case <-time.After(backoff):
			case <-b.done:
				return
			}
			continue
		}
		backoff = 0
		b.wg.Add(1)
		go b.admit(conn)
	}
}

// admit reads a new connection's local preamble and gives it its place:
// a new group, a stream of a group, or a parked reverse connection.
// Anything else — an unknown token, another principal, a bad byte, silence
// past the hello timeout — is closed unanswered.
func (b *unixBinder) admit(conn *net.UnixConn) {
	defer b.wg.Done()
	admitted := sync.OnceFunc(func() { <-b.admitting })
	defer admitted()
	_ = conn.SetReadDeadline(time.Now().Add(b.timeout))
	// Buffered: whatever follows the preamble stays with the stream.
	r := bufio.NewReaderSize(conn, readBufferSize)
	kind, err := r.ReadByte()
	if err != nil {
		_ = conn.Close()
		return
	}
	switch kind {
	case preambleControl:
		b.startGroup(conn)
		return
	case preambleTransfer, preambleReverse:
	default:
		_ = conn.Close()
		return
	}
	var token groupToken
	if _, err := io.ReadFull(r, token[:]); err != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	admitted()
	link := b.member(token, conn)
	switch {
	case link == nil:
		_ = conn.Close()
	case kind == preambleTransfer:
		link.deliver(newUnixStream(link, conn, r, link.id(), nil))
	case !link.park(conn):
		_ = conn.Close()
	}
}

// startGroup answers a control connection with a fresh token and hands
// the new link to the listener.
func (b *unixBinder) startGroup(conn *net.UnixConn) {
	var token groupToken
	_, _ = rand.Read(token[:])
	link := newUnixLink(false, b.path, conn, token)
	link.binder = b
	// Registered before the token leaves: a peer may open its first
	// transfer or reverse connection the moment it has the token.
	b.mu.Lock()
	b.groups[token] = link
	b.mu.Unlock()
	_ = conn.SetDeadline(time.Now().Add(b.timeout))
	if _, err := conn.Write(token[:]); err != nil {
		b.forget(token)
		_ = conn.Close()
		return
	}
	_ = conn.SetDeadline(time.Time{})
	select {
	case b.links <- link:
	case <-b.done:
		link.close(0, "")
	}
}

// member returns the live group token names, if conn comes from the same
// principal as its control connection (uid always, pid where reported).
func (b *unixBinder) member(token groupToken, conn *net.UnixConn) *unixLink {
	b.mu.Lock()
	link := b.groups[token]
	b.mu.Unlock()
	if link == nil || !link.hasCred {
		return link
	}
	cred, ok := peerCredentials(conn)
	if !ok || cred.UID != link.cred.UID || (cred.PID != 0 && link.cred.PID != 0 && cred.PID != link.cred.PID) {
		return nil
	}
	return link
}

func (b *unixBinder) forget(token groupToken) {
	b.mu.Lock()
	delete(b.groups, token)
	b.mu.Unlock()
}

func (b *unixBinder) accept() (localLink, error) {
	select {
	case l := <-b.links:
		return l, nil
	case <-b.done:
		return nil, errs.New(errs.KindNotConnected, "the unix socket %s was unbound", b.path)
	}
}

func (b *unixBinder) close() {
	b.once.Do(func() {
		close(b.done)
		_ = b.ln.Close()
		b.mu.Lock()
		for _, link := range b.groups {
			link.wakeWaiters() // streams waiting for room give up: admit must return
		}
		b.mu.Unlock()
		b.wg.Wait()
		_ = os.Remove(b.path)
	})
}

func (b *unixBinder) addr() string { return b.path }

func (b *unixBinder) scheme() identity.Scheme { return identity.SchemeUnix }

// dialUnix opens the control connection of a new group, takes its token,
// runs HELLO on it, and parks reverse connections for the peer.
func dialUnix(ctx context.Context, addr identity.Address, cfg Config, h Handler) (*Conn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "unix", addr.SocketPath)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "connect abandoned")
		}
		return nil, errs.Wrap(errs.KindNotConnected, err, "cannot connect to "+addr.String())
	}
	conn := raw.(*net.UnixConn)
	token, err := requestGroup(ctx, conn, cfg.Limits.HelloTimeout)
	if err != nil {
		_ = conn.Close()
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.KindCanceled, ctx.Err(), "connect abandoned")
		}
		return nil, errs.Wrap(errs.KindNotConnected, err, "cannot connect to "+addr.String()+": no group token came back")
	}
	link := newUnixLink(true, addr.SocketPath, conn, token)
	c := newLocalConn(link, cfg, true, addr.Path, h)
	if err := c.start(ctx); err != nil {
		c.Close(0, "")
		return nil, err
	}
	link.parkReverse()
	return c, nil
}

// requestGroup sends the control preamble and reads the group token,
// within timeout and ctx.
func requestGroup(ctx context.Context, conn *net.UnixConn, timeout time.Duration) (groupToken, error) {
	var token groupToken
	_ = conn.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := conn.Write([]byte{preambleControl}); err != nil {
		return token, err
	}
	if _, err := io.ReadFull(conn, token[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return token, errors.New("the peer closed the connection")
		}
		return token, err
	}
	return token, conn.SetDeadline(time.Time{})
}
