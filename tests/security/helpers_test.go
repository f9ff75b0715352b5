package security

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/rawpeer"
)

// inPath is where every server of this package accepts transfers and
// exchanges.
const inPath = "/in"

// server is a weida runtime bound with opts, an Acceptor at inPath.
type server struct {
	rt *weida.Runtime
	b  *weida.Binding
	in *weida.Acceptor
}

func startServer(t *testing.T, opts ...weida.BindOption) *server {
	t.Helper()
	rt := newRuntime(t)
	id := newIdentity(t)
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	in, err := rt.Listener().Acceptor(inPath)
	if err != nil {
		t.Fatal(err)
	}
	return &server{rt: rt, b: b, in: in}
}

// firstArrival accepts the next transfer or exchange at inPath and returns
// its proved peer and its payload.
func (s *server) firstArrival(t *testing.T) (weida.Fingerprint, bool, string) {
	t.Helper()
	in, err := s.in.Accept(ctxFor(t))
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	switch x := in.(type) {
	case *weida.IncomingTransfer:
		fp, ok := x.Meta().Peer()
		b, _ := x.Collect(1 << 10)
		return fp, ok, string(b)
	case *weida.IncomingExchange:
		fp, ok := x.Request().Meta().Peer()
		b, _ := x.Request().Collect(1 << 10)
		_ = x.Refuse()
		return fp, ok, string(b)
	}
	t.Fatalf("accepted %T", in)
	return weida.Fingerprint{}, false, ""
}

func newRuntime(t *testing.T) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

func newIdentity(t *testing.T) *weida.Identity {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// send pushes payload to url from a fresh runtime presenting id (nil:
// anonymous) and waits for its receipt.
func send(t *testing.T, url string, id *weida.Identity, payload string) error {
	t.Helper()
	var opts []weida.EndpointOption
	if id != nil {
		opts = append(opts, weida.WithClientIdentity(id))
	}
	p := newRuntime(t).Peer(weida.TrustByAddress(), opts...)
	if err := p.Connect(ctxFor(t), url); err != nil {
		return err
	}
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write([]byte(payload)); err != nil {
		return err
	}
	d, err := out.Finish()
	if err != nil {
		return err
	}
	return d.Delivered(ctxFor(t))
}

// handshakeRefused reports whether a raw connection ended by a TLS alert
// (a QUIC CRYPTO_ERROR), not by anything weida said after a handshake.
func handshakeRefused(c *rawpeer.Conn) bool {
	var te *quic.TransportError
	return errors.As(context.Cause(c.QC.Context()), &te) && te.ErrorCode.IsCryptoError()
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func udpAddr(hostPort string) (*net.UDPAddr, error) { return net.ResolveUDPAddr("udp", hostPort) }
