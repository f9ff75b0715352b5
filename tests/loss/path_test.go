package loss

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/udpproxy"
)

// The lossy path of every test (issue 11 item 3).
var (
	// steady is the loss model once connections are up, in both directions.
	steady = udpproxy.Policy{DropRate: 0.02, DuplicateRate: 0.01, Jitter: 3 * time.Millisecond}
	// handshake is the loss model of handshake (long-header) packets.
	handshake = udpproxy.Policy{DropRate: 0.30, Jitter: 3 * time.Millisecond}
)

// lossyLimits give the handshake room to retransmit through 30 % loss:
// quic-go's handshake idle timeout (5 s by default) would otherwise end an
// unlucky run of lost handshake packets, which is not what is measured.
var lossyLimits = weida.Limits{HandshakeTimeout: 30 * time.Second}

// Server paths.
const (
	sinkPath = "/sink" // a Puller the test reads
	echoPath = "/echo" // a Replier answering each request with its payload
)

// server is a weida runtime serving the paths on loopback.
type server struct {
	rt   *weida.Runtime
	b    *weida.Binding
	sink *weida.Puller
}

func startServer(t *testing.T) *server {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{Limits: lossyLimits})
	if err != nil {
		t.Fatal(err)
	}
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{rt: rt, b: b}
	if s.sink, err = rt.Listener().Puller(sinkPath); err != nil {
		t.Fatal(err)
	}
	echo, err := rt.Listener().Replier(echoPath)
	if err != nil {
		t.Fatal(err)
	}
	var serving sync.WaitGroup
	t.Cleanup(func() {
		rt.Shutdown()
		serving.Wait()
	})
	serving.Add(1)
	go func() {
		defer serving.Done()
		var replies sync.WaitGroup
		defer replies.Wait()
		for {
			req, err := echo.Accept(context.Background(), 1<<20)
			if err != nil {
				return
			}
			replies.Add(1)
			go func() {
				defer replies.Done()
				_ = req.Reply(context.Background(), req.Payload())
			}()
		}
	}()
	return s
}

// lossyURL starts a proxy in front of s with the lossy policies and
// returns the URL of path through it (the server's key, the proxy's
// address) and the proxy. One proxy serves one client connection.
func (s *server) lossyURL(t *testing.T, path string, seed uint64) (string, *udpproxy.Proxy) {
	t.Helper()
	addr, err := weida.ParseAddress(s.b.URL(path))
	if err != nil {
		t.Fatal(err)
	}
	local, err := udpAddr(s.b.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	p, err := udpproxy.New(local, seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	for _, d := range []udpproxy.Direction{udpproxy.ToServer, udpproxy.ToClient} {
		p.SetPolicy(d, steady)
		p.SetHandshakePolicy(d, handshake)
	}
	addr.Host, addr.Port = p.Addr().IP.String(), uint16(p.Addr().Port)
	return addr.String(), p
}

// clientRuntime is a runtime of its own, with the lossy limits.
func clientRuntime(t *testing.T) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{Limits: lossyLimits})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

// proxyFigures is one line of what the proxy did, for the figures.
func proxyFigures(p *udpproxy.Proxy) string {
	up, down := p.Stats(udpproxy.ToServer), p.Stats(udpproxy.ToClient)
	return fmt.Sprintf("to server %d packets, %d dropped (%d handshake), %d duplicated; to client %d packets, %d dropped (%d handshake), %d duplicated",
		up.Received, up.Dropped, up.HandshakeDropped, up.Duplicated, down.Received, down.Dropped, down.HandshakeDropped, down.Duplicated)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func udpAddr(hostPort string) (*net.UDPAddr, error) { return net.ResolveUDPAddr("udp", hostPort) }
