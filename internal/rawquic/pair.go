package rawquic

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
)

// alpn is the protocol the baseline negotiates; it is not weida's.
const alpn = "rawquic-baseline"

// Pair is one established loopback QUIC connection seen from both ends, in
// one process.
type Pair struct {
	// Client is the dialling end; Server is the accepting end.
	Client, Server *quic.Conn

	udp     net.PacketConn
	tr      *quic.Transport
	ln      *quic.Listener
	serving sync.WaitGroup

	mu       sync.Mutex
	serveErr error // the first failure of the server loop

	holdsCredit bool // a drained stream's credit returns only once released
}

// Establish binds a server on 127.0.0.1 and dials it, with TLS 1.3 on a
// freshly generated ECDSA P-256 certificate (the key type weida generates)
// that the client verifies as its only root. withTracer installs NopTracer
// on both ends, as weida installs its receipt tracker on both.
func Establish(ctx context.Context, withTracer bool) (*Pair, error) {
	return EstablishWith(ctx, Options{Tracer: withTracer})
}

// EstablishWith is Establish with the options o on both ends.
func EstablishWith(ctx context.Context, o Options) (*Pair, error) {
	serverTLS, clientTLS, err := tlsConfigs()
	if err != nil {
		return nil, err
	}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("rawquic: cannot bind the server: %w", err)
	}
	p := &Pair{udp: udp, tr: &quic.Transport{Conn: udp}, holdsCredit: o.HoldStreamCredit}
	if p.ln, err = p.tr.Listen(serverTLS, Config(false, o)); err != nil {
		p.Close()
		return nil, fmt.Errorf("rawquic: cannot listen: %w", err)
	}
	if p.Client, err = quic.DialAddr(ctx, udp.LocalAddr().String(), clientTLS, Config(true, o)); err != nil {
		p.Close()
		return nil, fmt.Errorf("rawquic: cannot dial: %w", err)
	}
	if p.Server, err = p.ln.Accept(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("rawquic: cannot accept: %w", err)
	}
	return p, nil
}

// tlsConfigs returns a server configuration and a client configuration that
// trusts exactly the server's certificate, both TLS 1.3 only.
func tlsConfigs() (server, client *tls.Config, err error) {
	id, err := identity.GenerateFor(identity.LoopbackNames())
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(id.Leaf())
	server = &tls.Config{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		NextProtos: []string{alpn}, Certificates: []tls.Certificate{id.TLSCertificate()}}
	client = &tls.Config{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		NextProtos: []string{alpn}, RootCAs: roots, ServerName: "127.0.0.1"}
	return server, client, nil
}

// Close closes both ends, waits for the server loop to return, releases the
// socket, and reports the first failure the server loop met.
func (p *Pair) Close() error {
	if p.Client != nil {
		_ = p.Client.CloseWithError(0, "")
	}
	if p.Server != nil {
		_ = p.Server.CloseWithError(0, "")
	}
	p.serving.Wait()
	if p.ln != nil {
		_ = p.ln.Close()
	}
	_ = p.tr.Close()
	_ = p.udp.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.serveErr
}

// serve runs loop on the server side until the connection ends.
func (p *Pair) serve(loop func() error) {
	p.serving.Add(1)
	go func() {
		defer p.serving.Done()
		if err := loop(); err != nil && !closedByUs(err) {
			p.fail(err)
		}
	}()
}

func (p *Pair) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.serveErr == nil {
		p.serveErr = err
	}
}

// closedByUs reports whether err is the connection ending by Close, which
// is how a server loop is meant to stop.
func closedByUs(err error) bool {
	var app *quic.ApplicationError
	return errors.As(err, &app) && app.ErrorCode == 0
}
