package broker

import (
	"os"
	"strings"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/access"
)

// An unlisted producer is refused on an exchange (Rejected) and on a
// one-way transfer (STOP_SENDING REJECTED), an unlisted consumer's
// SUBSCRIBE and CREDIT register nothing, and the listed ones on the same
// broker produce and consume as ever. Nothing of the refused is kept,
// delivered or settled.
func TestAccessRefusesUnlistedProducerAndConsumer(t *testing.T) {
	prod, cons, stranger := mustIdentity(t), mustIdentity(t), mustIdentity(t)
	tb, url := guardedJobs(t, jobsRules(access.AnyKey, []*weida.Identity{prod}, []*weida.Identity{cons}))

	bad := keyedProducer(t, url, stranger)
	if _, err := bad.send(t, "", []byte("forged job")); kindOf(err) != weida.KindRejected {
		t.Fatalf("an unlisted producer's exchange: %v, want Rejected", err)
	}
	if err := bad.pushBody(t, bigBody); kindOf(err) != weida.KindRejected {
		t.Fatalf("an unlisted producer's one-way transfer: %v, want Rejected", err)
	}
	// A consumer may not produce either: permissions are per action.
	if _, err := keyedProducer(t, url, cons).send(t, "", []byte("x")); kindOf(err) != weida.KindRejected {
		t.Fatalf("a consumer's exchange: %v, want Rejected", err)
	}

	good := keyedProducer(t, url, prod)
	good.mustSend(t, "", []byte("job 1"))
	if err := good.pushBody(t, []byte("job 2")); err != nil {
		t.Fatal(err)
	}
	tb.await(t, "/jobs", "2 ready", func(q *queue) bool { return len(q.ready) == 2 })

	thief := keyedConsumer(t, url, stranger, 10)
	tb.awaitAccess(t, "/jobs", access.Refusals{Produce: 3, Consume: 2}) // its SUBSCRIBE and its CREDIT
	worker := keyedConsumer(t, url, cons, 10)
	got := map[string]bool{}
	for range 2 {
		r := worker.recv(t)
		got[string(r.body)] = true
		r.settle(t)
	}
	if !got["job 1"] || !got["job 2"] {
		t.Fatalf("the listed consumer received %v", got)
	}
	tb.awaitSettled(t, "/jobs")
	s := tb.stats(t, "/jobs")
	if s.Consumers != 1 || s.Delivered != 2 || s.Ready != 0 {
		t.Fatalf("stats %+v: want one subscription (the listed one), 2 deliveries", s)
	}
	if s.Access.Produce != 3 || s.Access.Consume != 2 {
		t.Fatalf("access refusals %+v, want 3 produce and 2 consume", s.Access)
	}
	thief.nothingWithin(t, quiet)
}

// Without "anonymous": true a broker that does not bind loopback refuses
// a client that presents no key at the handshake; one bound to loopback
// admits it by default.
func TestAccessAnonymousRefusedUnlessLoopback(t *testing.T) {
	cfg := queues("/jobs")
	cfg.Access = &access.Rules{}
	remote := startGuarded(t, cfg)
	url := remote.binding.URL("/jobs")
	if !strings.Contains(remote.Access().Describe(), "anonymous clients are refused") {
		t.Fatalf("Describe() = %q", remote.Access().Describe())
	}
	if _, err := dialProducer(t, url, nil); err == nil {
		t.Fatal("an anonymous client connected to a broker that does not bind loopback")
	}
	keyedProducer(t, url, mustIdentity(t)).mustSend(t, "", []byte("keyed"))

	cfg.Loopback = true
	local := startGuarded(t, cfg)
	p, err := dialProducer(t, local.binding.URL("/jobs"), nil)
	if err != nil {
		t.Fatalf("an anonymous client on loopback: %v", err)
	}
	p.mustSend(t, "", []byte("anonymous on loopback"))
}

// A reload under load: an authorised producer keeps sending throughout
// and loses nothing, a key added by the reload may connect and produce,
// and a key it removed is refused at the handshake and on the connection
// it already held.
func TestAccessReloadAddsAndRemovesKeysUnderLoad(t *testing.T) {
	steady, leaving, joining := mustIdentity(t), mustIdentity(t), mustIdentity(t)
	clients := keyFile(t, steady, leaving)
	tb, url := guardedJobs(t, jobsRules(clients, []*weida.Identity{steady, leaving}, nil))
	old := keyedProducer(t, url, leaving)
	old.mustSend(t, "", []byte("before"))
	if _, err := dialProducer(t, url, joining); err == nil {
		t.Fatal("a key not yet listed connected")
	}

	const load = 200
	p := keyedProducer(t, url, steady)
	var wg sync.WaitGroup
	wg.Add(1)
	sent := make(chan int, 1)
	go func() {
		defer wg.Done()
		n := 0
		for ; n < load; n++ {
			if _, err := p.send(t, "", []byte("steady")); err != nil {
				t.Errorf("message %d of the authorised producer: %v", n, err)
				break
			}
		}
		sent <- n
	}()
	tb.await(t, "/jobs", "load under way", func(q *queue) bool { return len(q.ready) > 10 })
	if err := os.WriteFile(clients, []byte(fp(steady)+"\n"+fp(joining)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tb.ReloadAccess(ctxFor(t), jobsRules(clients, []*weida.Identity{steady, joining}, nil)); err != nil {
		t.Fatal(err)
	}
	keyedProducer(t, url, joining).mustSend(t, "", []byte("joined"))
	if _, err := old.send(t, "", []byte("after")); kindOf(err) != weida.KindRejected {
		t.Fatalf("the removed key's held connection: %v, want Rejected", err)
	}
	if _, err := dialProducer(t, url, leaving); err == nil {
		t.Fatal("a removed key completed a new handshake")
	}
	wg.Wait()
	if n := <-sent; n != load {
		t.Fatalf("the authorised producer sent %d of %d", n, load)
	}
	if s := tb.stats(t, "/jobs"); s.Ready != load+2 {
		t.Fatalf("%d ready, want %d (before, %d steady, joined)", s.Ready, load+2, load)
	}
}

// A consumer whose key loses its permission stops being served, and the
// deliveries it held go back to the queue as if its connection had
// ended: the next consumer gets them again (delivery attempt 2), and the
// first one's late settlement settles nothing.
func TestAccessRevokedConsumerReturnsItsDeliveries(t *testing.T) {
	prod, first, second := mustIdentity(t), mustIdentity(t), mustIdentity(t)
	tb, url := guardedJobs(t, jobsRules(access.AnyKey, []*weida.Identity{prod}, []*weida.Identity{first, second}))
	p := keyedProducer(t, url, prod)
	for range 3 {
		p.mustSend(t, "", []byte("job"))
	}
	c1 := keyedConsumer(t, url, first, 10)
	var held []received
	for range 3 {
		held = append(held, c1.recv(t))
	}
	if s := tb.stats(t, "/jobs"); s.Unsettled != 3 {
		t.Fatalf("%d unsettled, want 3", s.Unsettled)
	}
	if err := tb.ReloadAccess(ctxFor(t), jobsRules(access.AnyKey, []*weida.Identity{prod}, []*weida.Identity{second})); err != nil {
		t.Fatal(err)
	}
	s := tb.stats(t, "/jobs")
	if s.Unsettled != 0 || s.Ready != 3 || s.Consumers != 0 {
		t.Fatalf("after the revocation: %+v, want 3 ready, none out, no subscription", s)
	}
	held[0].settle(t) // too late: the delivery is not its any more
	if err := c1.Grant(ctxFor(t), 20); err != nil {
		t.Fatal(err)
	}
	tb.awaitAccess(t, "/jobs", access.Refusals{Consume: 1})

	c2 := keyedConsumer(t, url, second, 10)
	for range 3 {
		r := c2.recv(t)
		if r.attempt != 2 {
			t.Fatalf("a returned delivery carries attempt %d, want 2", r.attempt)
		}
		r.settle(t)
	}
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Delivered != 6 || s.Ready != 0 {
		t.Fatalf("%+v: want 6 deliveries (3 revoked, 3 settled) and nothing left", s)
	}
	c1.nothingWithin(t, quiet)
}

// A reload that cannot be compiled, or that would need another TLS mode
// of clients, is refused and the policy in force stays.
func TestAccessReloadRefusedKeepsThePolicy(t *testing.T) {
	prod := mustIdentity(t)
	clients := keyFile(t, prod)
	tb, url := guardedJobs(t, jobsRules(clients, []*weida.Identity{prod}, nil))
	before := tb.Access()
	bad := keyFile(t)
	if err := os.WriteFile(bad, []byte(fp(prod)+"\nsha256:nothex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rules *access.Rules
		want  string
	}{
		{jobsRules(bad, nil, nil), bad + ":2:"},
		{jobsRules(access.AnyKey, nil, nil), "restart the broker"},
		{&access.Rules{Queues: map[string]access.QueueRules{"/nope": {}}}, `"/nope" is not a queue`},
	} {
		if err := tb.ReloadAccess(ctxFor(t), tc.rules); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("reload: %v, want an error containing %q", err, tc.want)
		}
	}
	if tb.Access() != before {
		t.Fatal("a refused reload replaced the policy")
	}
	keyedProducer(t, url, prod).mustSend(t, "", []byte("still served"))
}

// New refuses rules naming a queue it does not serve.
func TestAccessNewRefusesUnknownQueue(t *testing.T) {
	cfg := queues("/jobs")
	cfg.Access = &access.Rules{Queues: map[string]access.QueueRules{"/job": {}}}
	if _, err := New(newRuntime(t), cfg); err == nil || !strings.Contains(err.Error(), `"/job" is not a queue`) {
		t.Fatalf("New: %v", err)
	}
}
