package load

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// Server paths.
const (
	echoPath = "/echo" // a Replier answering each request with its payload
	sinkPath = "/sink" // a Puller the server drains
)

// server is a weida runtime on loopback serving /echo and draining /sink.
type server struct {
	rt   *weida.Runtime
	b    *weida.Binding
	sunk atomic.Int64 // transfers drained whole from /sink
}

// startServer serves until stop; stop shuts the runtime down and waits for
// its serving goroutines.
func startServer(t *testing.T) (s *server, stop func()) {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
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
	echo, err := rt.Listener().Replier(echoPath)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := rt.Listener().Puller(sinkPath)
	if err != nil {
		t.Fatal(err)
	}
	s = &server{rt: rt, b: b}
	var serving sync.WaitGroup
	serving.Add(2)
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
	go func() {
		defer serving.Done()
		for {
			// RecvStream fails only when the puller is closed; a transfer
			// cut short fails its own Collect and costs nothing else.
			in, err := sink.RecvStream(context.Background())
			if err != nil {
				return
			}
			if _, err := in.Collect(1 << 20); err == nil {
				s.sunk.Add(1)
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			rt.Shutdown()
			serving.Wait()
		})
	}
	t.Cleanup(stop)
	return s, stop
}

func (s *server) url(path string) string { return s.b.URL(path) }

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// warmUp runs one exchange between a server and a client and shuts both
// down, so what the process initialises once (crypto tables, quic-go's
// pools, the first TLS handshake) is in the baseline and not counted as
// what a load left behind.
func warmUp(t *testing.T) {
	t.Helper()
	s, stop := startServer(t)
	defer stop()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown()
	r := rt.Requester(weida.TrustByAddress())
	if err := r.Connect(ctxFor(t, time.Minute), s.url(echoPath)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Request(ctxFor(t, time.Minute), []byte("warm"), 1<<10); err != nil {
		t.Fatal(err)
	}
}
