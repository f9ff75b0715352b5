package hostile

import (
	"context"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/rawpeer"
	"github.com/weida-go/weida/internal/resources"
)

// clientVictim is a weida runtime on the dialling side, with a bystander:
// a requester connected to a well-behaved weida server before any attack,
// that never redials.
type clientVictim struct {
	rt        *weida.Runtime
	bystander *weida.Requester
	base      resources.Snapshot
}

// clientHelloTimeout is short so a server that never says HELLO is judged
// quickly, and long enough for a loaded test machine's honest servers.
const clientHelloTimeout = time.Second

func newClientVictim(t *testing.T) *clientVictim {
	t.Helper()
	return newClientVictimWith(t, weida.Config{})
}

// newClientVictimWith is a client victim with cfg; a zero hello timeout
// becomes clientHelloTimeout.
func newClientVictimWith(t *testing.T, cfg weida.Config) *clientVictim {
	t.Helper()
	good := newVictim(t, weida.Config{})
	if cfg.Limits.HelloTimeout == 0 {
		cfg.Limits.HelloTimeout = clientHelloTimeout
	}
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	cv := &clientVictim{rt: rt}
	cv.bystander = rt.Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	if err := cv.bystander.Connect(ctxFor(t), good.url(echoPath)); err != nil {
		t.Fatalf("bystander connect: %v", err)
	}
	cv.base = resources.Take()
	return cv
}

// stillServes checks the bystander's original connection is alive and served.
func (cv *clientVictim) stillServes(t *testing.T) {
	t.Helper()
	if n := cv.bystander.PeerCount(); n != 1 {
		t.Fatalf("the bystander has %d live connections, want its original one", n)
	}
	echoOnce(t, cv.bystander, "bystander")
}

// settled: goroutines back at the baseline, live heap within settledMemory.
func (cv *clientVictim) settled(t *testing.T) {
	t.Helper()
	settle(t, cv.base, 0)
}

// hostileServer is a raw server whose every accepted connection is handed
// to script on its own goroutine; the connections are kept for the test.
type hostileServer struct {
	srv   *rawpeer.Server
	conns chan *rawpeer.Conn // every accepted connection, as accepted
}

// startHostileServer serves script until the test ends. script sees each
// connection right after the QUIC handshake, before any HELLO.
func startHostileServer(t *testing.T, script func(c *rawpeer.Conn)) *hostileServer {
	t.Helper()
	srv, err := rawpeer.Listen()
	if err != nil {
		t.Fatal(err)
	}
	hs := &hostileServer{srv: srv, conns: make(chan *rawpeer.Conn, 1024)}
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted []*rawpeer.Conn
	)
	t.Cleanup(func() {
		cancel()
		srv.Close()
		mu.Lock()
		for _, c := range accepted {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := srv.Accept(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			hs.conns <- c
			wg.Add(1)
			go func() {
				defer wg.Done()
				script(c)
			}()
		}
	}()
	return hs
}

// url is the hostile server's address for path.
func (hs *hostileServer) url(path string) string { return hs.srv.URL(path) }

// next is the next connection a client made.
func (hs *hostileServer) next(t *testing.T) *rawpeer.Conn {
	t.Helper()
	select {
	case c := <-hs.conns:
		return c
	case <-ctxFor(t).Done():
		t.Fatal("no client connected to the hostile server")
		return nil
	}
}
