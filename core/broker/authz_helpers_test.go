package broker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
)

// startGuarded serves a broker under cfg (its Access rules) on loopback,
// bound with the broker's BindOptions, as every embedder must.
func startGuarded(t *testing.T, cfg Config) *testBroker {
	t.Helper()
	rt := newRuntimeWith(t, RuntimeConfig(weida.Config{}, cfg))
	br, err := New(rt, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", mustIdentity(t), br.BindOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = br.Serve(context.Background())
	}()
	t.Cleanup(func() {
		br.Close()
		<-served
	})
	return &testBroker{Broker: br, rt: rt, binding: b}
}

func mustIdentity(t *testing.T) *weida.Identity {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// fp is id's fingerprint as the rules spell it.
func fp(id *weida.Identity) string { return id.Fingerprint().String() }

// keyFile writes a key file listing ids and returns its path.
func keyFile(t *testing.T, ids ...*weida.Identity) string {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintln(&b, fp(id))
	}
	path := filepath.Join(t.TempDir(), "clients.keys")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// jobsRules restricts /jobs to the producers and consumers given.
func jobsRules(clients string, produce, consume []*weida.Identity) *access.Rules {
	off := false
	r := &access.Rules{Clients: clients, Anonymous: &off, Queues: map[string]access.QueueRules{"/jobs": {}}}
	qr := access.QueueRules{}
	for _, id := range produce {
		qr.Produce = append(qr.Produce, fp(id))
	}
	for _, id := range consume {
		qr.Consume = append(qr.Consume, fp(id))
	}
	r.Queues["/jobs"] = qr
	return r
}

// guardedJobs serves /jobs under rules.
func guardedJobs(t *testing.T, rules *access.Rules) (*testBroker, string) {
	t.Helper()
	cfg := queues("/jobs")
	cfg.Access = rules
	tb := startGuarded(t, cfg)
	return tb, tb.binding.URL("/jobs")
}

// dialProducer is a producer presenting id (nil: anonymous).
func dialProducer(t *testing.T, url string, id *weida.Identity) (*producer, error) {
	t.Helper()
	rt := newRuntime(t)
	var opts []weida.EndpointOption
	if id != nil {
		opts = append(opts, weida.WithClientIdentity(id))
	}
	p := &producer{rt: rt, req: rt.Requester(weida.TrustByAddress(), opts...), push: rt.Pusher(weida.TrustByAddress(), opts...)}
	if err := p.req.Connect(ctxFor(t), url); err != nil {
		return nil, err
	}
	if err := p.push.Connect(ctxFor(t), url); err != nil {
		return nil, err
	}
	return p, nil
}

func keyedProducer(t *testing.T, url string, id *weida.Identity) *producer {
	t.Helper()
	p, err := dialProducer(t, url, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pushBody sends body one-way and returns its receipt's outcome.
func (p *producer) pushBody(t *testing.T, body []byte) error {
	t.Helper()
	out, err := p.push.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		return err
	}
	if _, err := out.Write(body); err != nil {
		return err
	}
	d, err := out.Finish()
	if err != nil {
		return err
	}
	return d.Delivered(ctxFor(t))
}

// keyedConsumer subscribes to url presenting id and grants credit.
func keyedConsumer(t *testing.T, url string, id *weida.Identity, credit uint64) *consumer {
	t.Helper()
	s := newRuntime(t).Subscriber(weida.TrustByAddress(), weida.WithClientIdentity(id))
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), ""); err != nil {
		t.Fatal(err)
	}
	if credit > 0 {
		if err := s.Grant(ctxFor(t), credit); err != nil {
			t.Fatal(err)
		}
	}
	return &consumer{s}
}

// awaitAccess waits until the queue's access refusals reach want.
func (tb *testBroker) awaitAccess(t *testing.T, path string, want access.Refusals) {
	t.Helper()
	tb.await(t, path, fmt.Sprintf("access refusals %+v", want), func(q *queue) bool {
		r := q.guard.Refusals(path)
		return r.Produce >= want.Produce && r.Consume >= want.Consume
	})
}

// bigBody is larger than a stream's flow-control window, so a one-way
// transfer refused at its header cannot be acknowledged whole before the
// refusal reaches its sender: its receipt is the refusal.
var bigBody = make([]byte, 4<<20)
