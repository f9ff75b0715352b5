package hostile

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/resources"
)

// Paths every server victim serves.
const (
	echoPath = "/echo" // a Replier answering each request with its payload
	pullPath = "/pull" // a Puller, read by the test
	pubPath  = "/pub"  // a Publisher
	bigPath  = "/big"  // a Replier answering each request with bigReply bytes
)

// bigReply is what /big answers: far above the 1 MiB stream window, so a
// requester that never reads blocks the reply on flow control.
const bigReply = 8 << 20

// maxRequest is the ceiling the victim's repliers read requests under.
const maxRequest = 1 << 20

// victim is a weida runtime bound on loopback, plus a bystander: a
// requester of another runtime, connected to /echo before any attack, that
// never redials — if its original connection died, it would have no peer.
type victim struct {
	rt        *weida.Runtime
	b         *weida.Binding
	pull      *weida.Puller
	pub       *weida.Publisher
	bystander *weida.Requester
	// bigAccepted is told of every /big request accepted, before its
	// reply is written; bigDone receives the outcome of every /big Reply.
	bigAccepted chan struct{}
	bigDone     chan error
	base        resources.Snapshot // taken once the victim and its bystander are up
}

// newVictim starts a victim with cfg.
func newVictim(t *testing.T, cfg weida.Config) *victim {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
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
	v := &victim{rt: rt, b: b, bigAccepted: make(chan struct{}, 16), bigDone: make(chan error, 16)}
	var serving sync.WaitGroup
	t.Cleanup(func() {
		rt.Shutdown()
		serving.Wait()
	})
	echo, err := rt.Listener().Replier(echoPath)
	if err != nil {
		t.Fatal(err)
	}
	big, err := rt.Listener().Replier(bigPath)
	if err != nil {
		t.Fatal(err)
	}
	if v.pull, err = rt.Listener().Puller(pullPath); err != nil {
		t.Fatal(err)
	}
	if v.pub, err = rt.Listener().Publisher(pubPath); err != nil {
		t.Fatal(err)
	}
	serving.Add(2)
	go func() {
		defer serving.Done()
		serveReplies(echo, func(req []byte) []byte { return req }, nil, nil)
	}()
	go func() {
		defer serving.Done()
		serveReplies(big, func([]byte) []byte { return make([]byte, bigReply) }, v.bigAccepted, v.bigDone)
	}()
	v.bystander = newClientRuntime(t).Requester(weida.TrustByAddress(), weida.WithReconnect(weida.NeverReconnect()))
	if err := v.bystander.Connect(ctxFor(t), v.url(echoPath)); err != nil {
		t.Fatalf("bystander connect: %v", err)
	}
	v.base = resources.Take()
	return v
}

// serveReplies answers every request of r with answer(payload), each on
// its own goroutine so one requester that never reads cannot stall the
// others. Each accepted request is told to accepted and the outcome of each
// Reply to outcomes, while they have room (nil: nowhere). It returns when r
// is closed.
func serveReplies(r *weida.Replier, answer func([]byte) []byte, accepted chan<- struct{}, outcomes chan<- error) {
	var replies sync.WaitGroup
	defer replies.Wait()
	for {
		req, err := r.Accept(context.Background(), maxRequest)
		if err != nil {
			return
		}
		select {
		case accepted <- struct{}{}:
		default: // nobody is watching this replier's requests
		}
		replies.Add(1)
		go func() {
			defer replies.Done()
			err := req.Reply(context.Background(), answer(req.Payload()))
			select {
			case outcomes <- err:
			default: // nobody is watching this replier's outcomes
			}
		}()
	}
}

func (v *victim) url(path string) string { return v.b.URL(path) }

// stillServes checks that the bystander's original connection survived
// and is served, and that a newcomer can connect and be served too.
func (v *victim) stillServes(t *testing.T) {
	t.Helper()
	if n := v.bystander.PeerCount(); n != 1 {
		t.Fatalf("the bystander has %d live connections, want its original one", n)
	}
	echoOnce(t, v.bystander, "bystander")
	newcomer := newClientRuntime(t).Requester(weida.TrustByAddress())
	if err := newcomer.Connect(ctxFor(t), v.url(echoPath)); err != nil {
		t.Fatalf("a newcomer could not connect: %v", err)
	}
	echoOnce(t, newcomer, "newcomer")
	_ = newcomer.Close()
}

// echoOnce runs one exchange through r against an echo replier.
func echoOnce(t *testing.T, r *weida.Requester, who string) {
	t.Helper()
	want := []byte("still served: " + who)
	got, err := r.Request(ctxFor(t), want, 1<<10)
	if err != nil {
		t.Fatalf("%s request: %v", who, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s got %q, want %q", who, got, want)
	}
}

// settled checks that goroutines came back to the victim's baseline and
// that the live heap fell back to within settledMemory of it.
func (v *victim) settled(t *testing.T) {
	t.Helper()
	settle(t, v.base, 0)
}

// settledAfter is settled after a load that peaked at peakGoroutines.
func (v *victim) settledAfter(t *testing.T, peakGoroutines int) {
	t.Helper()
	settle(t, v.base, peakGoroutines)
}

// settle waits for goroutines to come back to base and for the live heap
// to fall back to within settledMemory of it, plus a descriptor for each of
// the peakGoroutines the load ran: the Go runtime keeps every goroutine
// descriptor it made for reuse.
func settle(t *testing.T, base resources.Snapshot, peakGoroutines int) {
	t.Helper()
	if err := base.AwaitGoroutines(goroutineSlack, settleWithin); err != nil {
		t.Fatal(err)
	}
	bound := settledMemory + int64(peakGoroutines)*resources.GoroutineDescriptor
	if err := base.AwaitHeap(bound, settleWithin); err != nil {
		t.Fatal(err)
	}
}

// settledMemory bounds the live heap a victim may keep once every hostile
// connection is gone: caches, not per-connection state.
const settledMemory = 4 << 20

// goroutineSlack tolerates the few goroutines quic-go and the runtime
// start lazily (timers, the race detector's own) that are not the attack's.
const goroutineSlack = 4

// settleWithin bounds how long a closed connection's goroutines take to end.
const settleWithin = 15 * time.Second

// newClientRuntime is a runtime of its own, so its connections are its own.
func newClientRuntime(t *testing.T) *weida.Runtime {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	return rt
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
