package rawpeer

import (
	"context"
	"net"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// config is the raw peer's QUIC configuration: quic-go's defaults, except
// that it accepts as many streams as weida grants by default, so the
// hostile side is never the one that runs out, and a longer handshake
// timeout for lossy paths.
func config() *quic.Config {
	return &quic.Config{
		HandshakeIdleTimeout:  10 * time.Second,
		MaxIncomingStreams:    1024,
		MaxIncomingUniStreams: 2048,
	}
}

// Dial connects to the weida listener named by url (weida://sha256:…@host:port/path),
// verifying its key, presenting clientID when not nil. It only completes
// the QUIC handshake: no HELLO is sent, the caller decides what goes first.
func Dial(ctx context.Context, url string, clientID *identity.Identity) (*Conn, error) {
	addr, err := identity.ParseAddress(url)
	if err != nil {
		return nil, err
	}
	tlsConf, _, err := identity.ClientConfig(addr, identity.TrustByAddress(), clientID, wire.ALPN)
	if err != nil {
		return nil, err
	}
	qc, err := quic.DialAddr(ctx, addr.HostPort(), tlsConf, config())
	if err != nil {
		return nil, err
	}
	return &Conn{QC: qc}, nil
}

// Server is a raw QUIC listener with a weida identity and ALPN: weida
// clients dial it by URL, and the test plays the server side by hand.
type Server struct {
	id *identity.Identity
	ln *quic.Listener
}

// Listen binds a raw server on 127.0.0.1 with a fresh identity. Clients
// need not present a certificate.
func Listen() (*Server, error) {
	id, err := identity.Generate()
	if err != nil {
		return nil, err
	}
	tlsConf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		return nil, err
	}
	ln, err := quic.ListenAddr("127.0.0.1:0", tlsConf, config())
	if err != nil {
		return nil, err
	}
	return &Server{id: id, ln: ln}, nil
}

// URL is the dialling address of path on this server, naming its key.
func (s *Server) URL(path string) string {
	a := s.ln.Addr().(*net.UDPAddr)
	addr := identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: s.id.Fingerprint(), HasFingerprint: true,
		Host: a.IP.String(), Port: uint16(a.Port), Path: path}
	return addr.String()
}

// Accept waits for the next connection a client completes.
func (s *Server) Accept(ctx context.Context) (*Conn, error) {
	qc, err := s.ln.Accept(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{QC: qc}, nil
}

// Close stops accepting; live connections are closed by their owners.
func (s *Server) Close() { _ = s.ln.Close() }
