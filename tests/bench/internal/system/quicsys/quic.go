// Package quicsys runs the benchmark workloads on raw quic-go: the same
// stream work weida does (one bidirectional stream per request/reply, one
// unidirectional stream per one-way message or fan-out copy, one stream for
// a bulk transfer) with the quic.Config weida's transport builds from its
// default limits and the same TLS 1.3 set-up as weida's in-repo baseline
// (internal/rawquic, which another module cannot import), but no
// framing, HELLO, routing or receipt tracking. It is weida's physical limit.
//
// System{Traced: true} is the same with a qlog tracer that records nothing
// on both ends: weida learns its transport receipts from quic-go's qlog
// events, and quic-go builds those events for every packet as soon as any
// tracer is attached, so that column is the limit of a stack that listens
// to them. Queue is a third reference: the wire a queue exchange uses, one
// bidirectional stream per message answered with a short confirm, with
// nothing stored.
package quicsys

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlogwriter"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"

	"github.com/weida-go/weida/tests/bench/internal/system"
)

// System is raw quic-go.
type System struct {
	// Traced attaches a qlog tracer that records nothing on both ends.
	Traced bool
	// Floor is Traced and does the least weida's protocol and API require
	// beside it (floor.go).
	Floor bool
}

// Name implements system.System: "quic-go", "quic-go+qlog" traced, or
// "quic-go+floor".
func (sys System) Name() string {
	if sys.Floor {
		return "quic-go+floor"
	}
	if sys.Traced {
		return "quic-go+qlog"
	}
	return "quic-go"
}

// alpn is the protocol the baseline negotiates; it is not weida's.
const alpn = "rawquic-baseline"

// config is the quic.Config weida's transport builds from its default
// limits (transport.Config.quicConfig): 1 MiB stream and 16 MiB connection
// windows with initial = max, weida's stream limits and timeouts, and the
// keep-alive on the dialling side; traced, the no-op qlog tracer; for the
// floor, stream credit given back only when released.
func (sys System) config(dialling bool) *quic.Config {
	qc := &quic.Config{
		HandshakeIdleTimeout:           transport.DefaultHandshakeTimeout,
		MaxIdleTimeout:                 transport.DefaultIdleTimeout,
		InitialStreamReceiveWindow:     transport.DefaultStreamWindow,
		MaxStreamReceiveWindow:         transport.DefaultStreamWindow,
		InitialConnectionReceiveWindow: transport.DefaultConnectionWindow,
		MaxConnectionReceiveWindow:     transport.DefaultConnectionWindow,
		MaxIncomingStreams:             transport.DefaultMaxBidiStreams,
		MaxIncomingUniStreams:          transport.DefaultMaxUniStreams,
	}
	if dialling {
		qc.KeepAlivePeriod = transport.DefaultKeepAlive
	}
	if sys.Traced || sys.Floor {
		qc.Tracer = nopTracer
	}
	qc.RequireStreamCreditRelease = sys.Floor
	return qc
}

// nopTracer is a quic.Config Tracer whose recorder ignores every event:
// quic-go still builds each event for it, which is the cost measured.
func nopTracer(context.Context, bool, quic.ConnectionID) qlogwriter.Trace { return nopTrace{} }

// nopTrace is both the trace and its only recorder.
type nopTrace struct{}

func (nopTrace) AddProducer() qlogwriter.Recorder { return nopTrace{} }
func (nopTrace) RecordEvent(qlogwriter.Event)     {}
func (nopTrace) Close() error                     { return nil }

// listener accepts connections and runs serve on each in its own goroutine.
type listener struct {
	udp   net.PacketConn
	tr    *quic.Transport
	ln    *quic.Listener
	cert  []byte // the server certificate (DER), carried in the address
	loops *system.Loops

	mu    sync.Mutex
	conns []*quic.Conn
}

// listen binds 127.0.0.1 on a kernel-chosen port with a fresh certificate
// naming the loopback addresses, TLS 1.3 only.
func (sys System) listen(serve func(ctx context.Context, c *quic.Conn)) (*listener, error) {
	id, err := identity.GenerateFor(identity.LoopbackNames())
	if err != nil {
		return nil, err
	}
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, fmt.Errorf("quic-go: binding: %w", err)
	}
	l := &listener{udp: udp, tr: &quic.Transport{Conn: udp}, cert: id.Leaf().Raw, loops: system.NewLoops()}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		NextProtos: []string{alpn}, Certificates: []tls.Certificate{id.TLSCertificate()}}
	if l.ln, err = l.tr.Listen(tlsConf, sys.config(false)); err != nil {
		_ = l.tr.Close()
		_ = udp.Close()
		return nil, fmt.Errorf("quic-go: listening: %w", err)
	}
	l.loops.Go(func(ctx context.Context) {
		for {
			c, err := l.ln.Accept(ctx)
			if err != nil {
				return
			}
			l.mu.Lock()
			l.conns = append(l.conns, c)
			l.mu.Unlock()
			l.loops.Go(func(ctx context.Context) { serve(ctx, c) })
		}
	})
	return l, nil
}

// Addr is "ip:port|<base64 certificate>": a client trusts exactly it.
func (l *listener) Addr() string {
	return l.udp.LocalAddr().String() + "|" + base64.RawURLEncoding.EncodeToString(l.cert)
}

// accepted is a snapshot of the accepted connections.
func (l *listener) accepted() []*quic.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*quic.Conn(nil), l.conns...)
}

func (l *listener) Close() error {
	l.loops.Stop(func() {
		_ = l.ln.Close()
		for _, c := range l.accepted() {
			_ = c.CloseWithError(0, "")
		}
	})
	_ = l.tr.Close()
	return l.udp.Close()
}

// dial connects to a listener's Addr with its own UDP socket, trusting
// only the certificate the address carries.
func (sys System) dial(ctx context.Context, addr string) (*quic.Conn, error) {
	hostPort, certText, ok := strings.Cut(addr, "|")
	if !ok {
		return nil, fmt.Errorf("quic-go: the address %q names no certificate", addr)
	}
	der, err := base64.RawURLEncoding.DecodeString(certText)
	if err != nil {
		return nil, fmt.Errorf("quic-go: the address's certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("quic-go: the address's certificate: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS13,
		NextProtos: []string{alpn}, RootCAs: roots, ServerName: "127.0.0.1"}
	c, err := quic.DialAddr(ctx, hostPort, tlsConf, sys.config(true))
	if err != nil {
		return nil, fmt.Errorf("quic-go: dialling %s: %w", hostPort, err)
	}
	return c, nil
}

// abortCode resets a stream that could not be served.
const abortCode quic.StreamErrorCode = 1

// closeConn closes a client connection.
func closeConn(c *quic.Conn) error { return c.CloseWithError(0, "") }
