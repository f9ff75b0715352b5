package clustercrash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/internal/crashkit"
)

const (
	// inFlight is how many exchanges are outstanding at once.
	inFlight = 256
	// maxBodyBits: bodies are 1 B to 4 KiB, log-uniform: inline in the
	// ADMIT entry (docs/CLUSTER.md §2)...
	maxBodyBits = 12
	// ...except one in largeOneIn, 4 KiB to 64 KiB, which the leader
	// streams to the members' payload stores before its ADMIT (unless
	// WEIDA_CLUSTER_LARGE=0).
	largeOneIn   = 16
	maxLargeBody = 64 << 10
	// sendTimeout bounds one exchange, a failover included.
	sendTimeout = 20 * time.Second
	// retryPace spaces a sender's attempts after a failure, so a sender
	// refused at once (a member that no longer leads) does not spin.
	retryPace = 50 * time.Millisecond
)

// target is the requester connected to one leader, and that leader's term.
type target struct {
	req  *weida.Requester
	term uint64
}

// producer keeps inFlight exchanges outstanding against the current
// leader, switching to each new leader the members name.
type producer struct {
	rt     *weida.Runtime
	site   *clusterSite
	ledger *ledger
	target atomic.Pointer[target]
	moved  chan struct{} // closed and replaced when target changes
	mu     sync.Mutex
	// failures: the kinds of failed send already on the timeline, per
	// target term (the first of each kind is recorded).
	failures map[uint64]map[weida.ErrorKind]bool
	large    bool // some bodies over 4 KiB (unless WEIDA_CLUSTER_LARGE=0)
}

// startProducer connects to the current leader and runs the senders
// until ctx ends; the returned wait returns once they all stopped.
func startProducer(ctx context.Context, t *testing.T, site *clusterSite, seed uint64, l *ledger) (wait func()) {
	t.Helper()
	rt, err := weida.NewRuntime(crashkit.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	p := &producer{rt: rt, site: site, ledger: l, moved: make(chan struct{}), large: os.Getenv(largeEnv) != "0"}
	lead, ok := site.leaders.awaitNewer(0, electionTimeout)
	if !ok {
		t.Fatalf("no member named a leader within %v", electionTimeout)
	}
	if err := p.retarget(ctx, lead); err != nil {
		t.Fatalf("the producer cannot connect to the leader: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.follow(ctx)
	}()
	for i := range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.send(ctx, i, rand.New(rand.NewPCG(seed, uint64(i))))
		}()
	}
	return wg.Wait
}

// follow moves the senders to every new leader until ctx ends.
func (p *producer) follow(ctx context.Context) {
	for ctx.Err() == nil {
		_, changed := p.site.leaders.leader()
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		lead, _ := p.site.leaders.leader()
		if lead.term > p.target.Load().term {
			_ = p.retarget(ctx, lead) // a leader that died meanwhile: the next one will come
		}
	}
}

// retarget connects a requester to lead and hands it to the senders.
func (p *producer) retarget(ctx context.Context, lead leadership) error {
	m := p.site.byKey(lead.key)
	if m == nil {
		return fmt.Errorf("the members named a leader %s that is not one of them", lead.key)
	}
	req := p.rt.Requester(weida.TrustByAddress())
	connectCtx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	p.site.timeline.add("producer: connecting to member%d (term %d)", m.index+1, lead.term)
	if err := req.Connect(connectCtx, m.url()); err != nil {
		p.site.timeline.add("producer: connecting to member%d (term %d) failed: %v", m.index+1, lead.term, err)
		_ = req.Close()
		return err
	}
	p.site.timeline.add("producer: connected to member%d (term %d)", m.index+1, lead.term)
	old := p.target.Swap(&target{req: req, term: lead.term})
	p.mu.Lock()
	close(p.moved)
	p.moved = make(chan struct{})
	p.mu.Unlock()
	if old != nil {
		_ = old.req.Close()
	}
	return nil
}

// send is one of the inFlight senders: one exchange at a time until ctx
// ends, each message a fresh topic and random body.
func (p *producer) send(ctx context.Context, index int, rng *rand.Rand) {
	for n := 0; ctx.Err() == nil; n++ {
		topic := fmt.Sprintf("m.%d.%d", index, n)
		size := 1 + rng.IntN(1<<rng.IntN(maxBodyBits+1))
		if p.large && rng.IntN(largeOneIn) == 0 {
			size = 4<<10 + 1 + rng.IntN(maxLargeBody-4<<10)
		}
		body := make([]byte, size)
		for i := range body {
			body[i] = byte(rng.Uint32())
		}
		tg := p.target.Load()
		p.mu.Lock()
		moved := p.moved
		p.mu.Unlock()
		p.ledger.sent(topic, body)
		if err := p.exchange(ctx, tg, topic, body); err != nil {
			p.ledger.failed(topic, err)
			p.noteFailure(tg.term, err)
			pace := time.NewTimer(retryPace)
			select {
			case <-moved:
			case <-pace.C:
			case <-ctx.Done():
			}
			pace.Stop()
		}
	}
}

// exchange sends one message; its confirm must name a level the queue
// certifies: Accepted, Stored or Replicated.
func (p *producer) exchange(ctx context.Context, tg *target, topic string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	_, meta, err := tg.req.RequestWith(ctx, weida.TransferMeta{Topic: topic}, body, 0)
	if err != nil {
		return err
	}
	level, ok := meta.Achieved()
	if !ok || level < weida.Accepted || level > weida.Replicated {
		p.ledger.violations.Add("the exchange %s was confirmed at level %d (present %v): not Accepted, Stored or Replicated", topic, level, ok)
		return nil
	}
	if p.ledger.certify(topic, level, tg.term) {
		p.site.timeline.add("producer: first confirm of term %d (level %d)", tg.term, level)
	}
	return nil
}

// noteFailure puts the first failed send of each kind per term on the
// timeline.
func (p *producer) noteFailure(term uint64, err error) {
	kind := weida.KindOf(err)
	p.mu.Lock()
	if p.failures == nil {
		p.failures = map[uint64]map[weida.ErrorKind]bool{}
	}
	if p.failures[term] == nil {
		p.failures[term] = map[weida.ErrorKind]bool{}
	}
	first := !p.failures[term][kind]
	p.failures[term][kind] = true
	p.mu.Unlock()
	if first {
		p.site.timeline.add("producer: first %s failure on the term-%d leader: %v", kind, term, err)
	}
}
