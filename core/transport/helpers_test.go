package transport

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/wire"
)

// recorder is a Handler that hands everything to the test through channels.
type recorder struct {
	data      chan *InStream
	exchanges chan *Exchange
	closed    chan error
	refuse    atomic.Bool // refuse every transfer with UNKNOWN_ENDPOINT, as an empty namespace does
	answers   atomic.Bool // every path answers exchanges (what a unix stream is, PathAnswerer)
}

// AnswersExchanges implements PathAnswerer for local transports.
func (r *recorder) AnswersExchanges(string) bool { return r.answers.Load() }

func newRecorder() *recorder {
	return &recorder{data: make(chan *InStream, 64), exchanges: make(chan *Exchange, 64), closed: make(chan error, 8)}
}

func (r *recorder) Data(_ *Conn, in *InStream) {
	if r.refuse.Load() {
		in.Refuse(wire.CodeUnknownEndpoint)
		return
	}
	r.data <- in
}

func (r *recorder) Exchange(_ *Conn, ex *Exchange) {
	if r.refuse.Load() {
		ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
		return
	}
	r.exchanges <- ex
}

func (r *recorder) Control(*Conn, wire.Kind, *wire.Subscribe, *wire.Credit) {}

func (r *recorder) Cursor(_ *Conn, _ wire.CursorHead, s *CursorStream) { s.Stop(wire.CodeCanceled) }

func (r *recorder) Closed(_ *Conn, err error) {
	select {
	case r.closed <- err:
	default:
	}
}

// server is a listener with a fresh identity.
type server struct {
	l  *Listener
	id *identity.Identity
	h  *recorder
}

func startServer(t *testing.T, cfg Config) *server {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	tlsConf, err := identity.ServerConfig(id, identity.ClientAnonymousAllowed, identity.TrustByAddress(), wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	h := newRecorder()
	l, err := Listen("127.0.0.1:0", tlsConf, cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(wire.CodeShutdown, "test over") })
	return &server{l: l, id: id, h: h}
}

// address names the server's key at addr (the proxy's, when one is used).
func (s *server) address(addr *net.UDPAddr, path string) identity.Address {
	return identity.Address{Scheme: identity.SchemeQUIC, Fingerprint: s.id.Fingerprint(), HasFingerprint: true,
		Host: addr.IP.String(), Port: uint16(addr.Port), Path: path}
}

func dialServer(t *testing.T, s *server, addr *net.UDPAddr, cfg Config) (*Conn, *recorder) {
	t.Helper()
	h := newRecorder()
	c, err := Dial(testContext(t), s.address(addr, "/t"), identity.TrustByAddress(), nil, cfg, h)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	return c, h
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rawDial opens a bare quic-go connection speaking weida's ALPN, for tests
// that must put arbitrary bytes on the wire.
func rawDial(t *testing.T, s *server) *quic.Conn {
	t.Helper()
	tlsConf, _, err := identity.ClientConfig(s.address(s.l.Addr(), "/t"), identity.TrustByAddress(), nil, wire.ALPN)
	if err != nil {
		t.Fatal(err)
	}
	qc, err := quic.DialAddr(testContext(t), s.l.Addr().String(), tlsConf, &quic.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = qc.CloseWithError(0, "") })
	return qc
}

// rawUni writes b on a new uni stream and finishes it.
func rawUni(t *testing.T, qc *quic.Conn, b []byte) {
	t.Helper()
	s, err := qc.OpenUniStream()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
}

func helloBytes() []byte {
	h := wire.DefaultHello()
	return wire.AppendFrame(nil, wire.KindHello, &h)
}

// closeCode waits for the raw connection to close and returns the peer's
// application error code.
func closeCode(t *testing.T, qc *quic.Conn) wire.AppCode {
	t.Helper()
	select {
	case <-qc.Context().Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the connection was not closed")
	}
	var appErr *quic.ApplicationError
	cause := context.Cause(qc.Context())
	if !errors.As(cause, &appErr) || !appErr.Remote {
		t.Fatalf("closed by %v, want a remote application close", cause)
	}
	return wire.AppCode(appErr.ErrorCode)
}

// goroutineBaseline returns a check that the goroutine count came back
// down after the test's connections ended.
func goroutineBaseline(t *testing.T) func() {
	before := runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before+2 {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Fatalf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:n])
			}
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
