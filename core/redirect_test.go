package weida_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync/atomic"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// A fake cluster in one process: each member is a runtime serving /q and
// the leader query. Its producers' exchanges are refused NOT_LEADER with
// the hint the test set, or, on the member that leads, confirmed with the
// request's own bytes as the reply; its leader query answers what the test
// set. No broker is involved: these drive the client's rules only.

type fakeMember struct {
	b      *weida.Binding
	port   *weida.QueuePort
	url    string
	leads  atomic.Bool
	hint   atomic.Pointer[string] // NOT_LEADER's key 1; "" leaves it out
	term   atomic.Uint64
	answer atomic.Pointer[string] // the leader query's answer; "" is NOT_LEADER without a leader
	asked  atomic.Int64           // leader queries answered
	served atomic.Int64           // exchanges confirmed
	took   chan []byte            // one-way transfers taken while leading
	gated  chan struct{}          // a SUBSCRIBE or CREDIT the leader gate stopped
	heard  chan weida.PortEvent   // the port's other events (consumers')
}

func newFakeMember(t *testing.T) *fakeMember {
	t.Helper()
	rt := testRuntime(t)
	m := &fakeMember{b: bindLoopback(t, rt), heard: make(chan weida.PortEvent, 64), took: make(chan []byte, 64), gated: make(chan struct{}, 64)}
	m.url = m.b.URL("/q")
	var err error
	if m.port, err = m.b.QueuePort("/q"); err != nil {
		t.Fatal(err)
	}
	m.port.SetLeaderGate(func() bool { // as a broker's replicated queue does
		if m.leads.Load() {
			return true
		}
		select {
		case m.gated <- struct{}{}:
		default:
		}
		return false
	})
	lp, err := m.b.LeaderPort()
	if err != nil {
		t.Fatal(err)
	}
	m.setHint("", 1)
	m.setAnswer("")
	go m.serveProducers()
	go m.serveQueries(lp)
	return m
}

func (m *fakeMember) setHint(leader string, term uint64) { m.hint.Store(&leader); m.term.Store(term) }
func (m *fakeMember) setAnswer(leader string)            { m.answer.Store(&leader) }

func (m *fakeMember) serveProducers() {
	for {
		select {
		case ev := <-m.port.Events():
			switch {
			case ev.Kind == weida.PortTransfer && !m.leads.Load():
				_ = ev.Transfer.RefuseNotLeader()
				continue
			case ev.Kind == weida.PortTransfer:
				body, _ := ev.Transfer.Collect(1 << 20)
				m.took <- body
				continue
			case ev.Kind != weida.PortExchange:
				m.heard <- ev
				continue
			}
			if !m.leads.Load() {
				_ = ev.Exchange.RefuseNotLeader(*m.hint.Load(), m.term.Load())
				continue
			}
			body, err := ev.Exchange.Request().Collect(1 << 20)
			if err != nil {
				_ = ev.Exchange.Refuse()
				continue
			}
			m.served.Add(1)
			if out, err := ev.Exchange.Reply(weida.TransferMeta{}); err == nil {
				_, _ = out.Write(body)
				_, _ = out.Finish()
			}
		case <-m.port.Done():
			return
		}
	}
}

// next waits for the port's next consumer event.
func (m *fakeMember) next(t *testing.T) weida.PortEvent {
	t.Helper()
	select {
	case ev := <-m.heard:
		return ev
	case <-ctxFor(t).Done():
		t.Fatal("no consumer event")
	}
	return weida.PortEvent{}
}

// awaitConsumer waits until a consumer subscribed to filter and granted limit.
func (m *fakeMember) awaitConsumer(t *testing.T, filter string, limit uint64) {
	t.Helper()
	var subscribed, granted bool
	for !subscribed || !granted {
		ev := m.next(t)
		subscribed = subscribed || ev.Kind == weida.PortSubscribe && ev.Filter == filter
		granted = granted || ev.Kind == weida.PortCredit && ev.Filter == filter && ev.Limit == limit
	}
}

func (m *fakeMember) serveQueries(lp *weida.QueuePort) {
	for {
		select {
		case ev := <-lp.Events():
			if ev.Kind != weida.PortExchange {
				continue
			}
			path, err := ev.Exchange.Request().Collect(512)
			switch {
			case err != nil:
				_ = ev.Exchange.Refuse()
			case string(path) != "/q":
				_ = ev.Exchange.RefuseUnknownEndpoint()
			case *m.answer.Load() == "":
				_ = ev.Exchange.RefuseNotLeader("", m.term.Load())
			default:
				_ = ev.Exchange.AnswerLeader(*m.answer.Load(), m.term.Load())
			}
			m.asked.Add(1)
		case <-lp.Done():
			return
		}
	}
}

// trustOf pins every member's key: the trust a cluster's trust file gives.
func trustOf(t *testing.T, members ...*fakeMember) weida.Trust {
	t.Helper()
	trust := weida.TrustByAddress()
	for _, m := range members {
		trust = trust.AndPin(m.b.Fingerprint())
	}
	return trust
}

func requester(t *testing.T, trust weida.Trust, url string) *weida.Requester {
	t.Helper()
	r := testRuntime(t).Requester(trust, fastRedial())
	if err := r.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestClusterListConnectsToTheLeader(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setAnswer(b.url)
	b.setAnswer(b.url)
	b.leads.Store(true)
	r := requester(t, weida.TrustByAddress(), weida.ClusterAddress(a.url, b.url)) // the list's keys are the trust
	if _, err := r.Request(ctxFor(t), []byte("job"), 1024); err != nil || b.served.Load() != 1 {
		t.Fatalf("request: %v, leader served %d", err, b.served.Load())
	}
}

func TestPortlessClusterNameResolvesAndTrustDecides(t *testing.T) {
	a := newFakeMember(t)
	a.setAnswer(a.url)
	a.leads.Store(true)
	_, portText, _ := net.SplitHostPort(a.b.LocalAddr())
	port, _ := strconv.Atoi(portText)
	var looked atomic.Int64
	weida.SetClusterDNSForTest(t, uint16(port), func(_ context.Context, host string) ([]net.IPAddr, error) {
		looked.Add(1)
		if host != "queue.example" {
			return nil, errors.New("unexpected name " + host)
		}
		return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
	})
	r := testRuntime(t).Requester(trustOf(t, a), fastRedial())
	if err := r.Connect(ctxFor(t), "weida://queue.example/q"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Request(ctxFor(t), []byte("job"), 1024); err != nil || looked.Load() == 0 {
		t.Fatalf("request: %v (resolved %d times)", err, looked.Load())
	}
	// Trust decides: the same name under a trust without that key is refused.
	other := testRuntime(t).Requester(weida.TrustByAddress().AndPin(newFakeMember(t).b.Fingerprint()), fastRedial())
	if err := other.Connect(ctxFor(t), "weida://queue.example/q"); !errors.Is(err, weida.ErrUntrusted) {
		t.Fatalf("connect to a name resolving to a key outside the trust: %v, want Untrusted", err)
	}
}

func TestSubscriberFindsTheNewLeaderAfterANotLeaderClose(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setAnswer(a.url)
	b.setAnswer(a.url)
	a.leads.Store(true)
	s := testRuntime(t).Subscriber(trustOf(t, a, b), fastRedial())
	if err := s.Connect(ctxFor(t), a.url); err != nil { // one member's URL: the cluster finds the rest
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), "jobs.#"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctxFor(t), 3); err != nil {
		t.Fatal(err)
	}
	ev := a.next(t)
	for ev.Kind != weida.PortSubscribe {
		ev = a.next(t)
	}
	// The leadership moves to b; a closes its consumer with NOT_LEADER.
	a.term.Store(2)
	b.term.Store(2)
	a.setAnswer(b.url)
	b.setAnswer(b.url)
	a.leads.Store(false)
	b.leads.Store(true)
	ev.Conn.CloseNotLeader()
	b.awaitConsumer(t, "jobs.#", 3)
}

func TestPusherToAQueueAsksWhoLeadsBeforeItsFirstReportingSend(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setAnswer(b.url) // a follower, which would stop a one-way transfer with 10
	b.setAnswer(b.url)
	b.leads.Store(true)
	p := testRuntime(t).Pusher(trustOf(t, a, b), fastRedial())
	if err := p.Connect(ctxFor(t), a.url); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"first", "second"} {
		if _, err := p.SendReporting(ctxFor(t), []byte(body), weida.ReportOrder{Levels: []uint64{weida.Accepted}}); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-b.took:
			if string(got) != body {
				t.Fatalf("the leader took %q, want %q", got, body)
			}
		case <-ctxFor(t).Done():
			t.Fatalf("%q never reached the leader", body)
		}
	}
	if a.asked.Load() != 1 || b.asked.Load() != 0 {
		t.Fatalf("asked the follower %d times, the leader %d; want once, on the first connection only", a.asked.Load(), b.asked.Load())
	}
}

func TestSubscriberGrantMovesToTheLeader(t *testing.T) {
	a, b := newFakeMember(t), newFakeMember(t)
	a.setAnswer(b.url)
	b.setAnswer(b.url)
	b.leads.Store(true)
	s := testRuntime(t).Subscriber(trustOf(t, a, b), fastRedial())
	if err := s.Connect(ctxFor(t), a.url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), "jobs.#"); err != nil {
		t.Fatal(err) // a stops it with 10: nothing tells the subscriber
	}
	if err := s.Grant(ctxFor(t), 3); err != nil {
		t.Fatal(err)
	}
	b.awaitConsumer(t, "jobs.#", 3)
}

func TestSubscriberSubscribesAgainOnceAnElectedMemberConfirmsItLeads(t *testing.T) {
	a := newFakeMember(t) // no leader yet: its gate stops the SUBSCRIBE with 10
	s := testRuntime(t).Subscriber(trustOf(t, a), fastRedial())
	if err := s.Connect(ctxFor(t), a.url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), "jobs.#"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.gated:
	case <-ctxFor(t).Done():
		t.Fatal("the SUBSCRIBE was not stopped")
	}
	// a wins the election: it leads, and says so.
	a.leads.Store(true)
	a.setAnswer(a.url)
	if err := s.Grant(ctxFor(t), 2); err != nil {
		t.Fatal(err)
	}
	a.awaitConsumer(t, "jobs.#", 2)
}
