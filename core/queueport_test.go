package weida_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// portEvent waits for the port's next event.
func portEvent(t *testing.T, p *weida.QueuePort) weida.PortEvent {
	t.Helper()
	select {
	case ev := <-p.Events():
		return ev
	case <-ctxFor(t).Done():
		t.Fatal("no port event")
	}
	return weida.PortEvent{}
}

// servePort binds a runtime with a queue port at path.
func servePort(t *testing.T, path string) (*weida.Binding, *weida.QueuePort) {
	t.Helper()
	rt := testRuntime(t)
	b := bindLoopback(t, rt)
	p, err := b.QueuePort(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, p
}

func TestQueuePortHearsConsumersInOrderOfTheirConnection(t *testing.T) {
	b, port := servePort(t, "/q")
	s := testRuntime(t).Subscriber(weida.TrustByAddress())
	if err := s.Connect(ctxFor(t), b.URL("/q")); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), "a.*"); err != nil {
		t.Fatal(err)
	}
	sub := portEvent(t, port)
	if sub.Kind != weida.PortSubscribe || sub.Filter != "a.*" || !sub.Conn.Alive() {
		t.Fatalf("first event %v %q (alive %v), want subscribe a.*", sub.Kind, sub.Filter, sub.Conn.Alive())
	}
	for _, limit := range []uint64{3, 2, 3, 7} { // only raises are sent
		if err := s.Grant(ctxFor(t), limit); err != nil {
			t.Fatal(err)
		}
	}
	if s.Granted() != 7 {
		t.Fatalf("granted %d, want the highest, 7", s.Granted())
	}
	var limits []uint64
	for range 2 {
		ev := portEvent(t, port)
		if ev.Kind != weida.PortCredit || ev.Filter != "a.*" || ev.Conn != sub.Conn {
			t.Fatalf("event %v %q, want credit for a.* on the subscriber's connection", ev.Kind, ev.Filter)
		}
		limits = append(limits, ev.Limit)
	}
	slices.Sort(limits) // each CREDIT rides its own stream: unordered
	if !slices.Equal(limits, []uint64{3, 7}) {
		t.Fatalf("credit limits %v, want 3 and 7", limits)
	}
	if err := s.Unsubscribe(ctxFor(t), "a.*"); err != nil {
		t.Fatal(err)
	}
	if ev := portEvent(t, port); ev.Kind != weida.PortUnsubscribe || ev.Filter != "a.*" {
		t.Fatalf("event %v, want unsubscribe", ev.Kind)
	}
	_ = s.Close()
	if ev := portEvent(t, port); ev.Kind != weida.PortConnGone || ev.Conn != sub.Conn || ev.Conn.Alive() {
		t.Fatalf("event %v, want the connection's end", ev.Kind)
	}
}

func TestQueuePortConfirmsDeliversAndReports(t *testing.T) {
	b, port := servePort(t, "/q")
	url := b.URL("/q")

	// A producer's exchange, confirmed with key 8.
	req := testRuntime(t).Requester(weida.TrustByAddress())
	if err := req.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		meta weida.IncomingMeta
		err  error
	}
	replied := make(chan reply, 1)
	go func() {
		_, meta, err := req.RequestWith(ctxFor(t), weida.TransferMeta{Topic: "t.1"}, []byte("job"), 16)
		replied <- reply{meta, err}
	}()
	ev := portEvent(t, port)
	if ev.Kind != weida.PortExchange {
		t.Fatalf("event %v, want an exchange", ev.Kind)
	}
	if topic, _ := ev.Exchange.Request().Meta().Topic(); topic != "t.1" {
		t.Fatalf("the producer's topic arrived as %q", topic)
	}
	if err := port.Confirm(ev.Exchange, weida.ApplicationFloor); !errors.Is(err, weida.ErrProtocol) {
		t.Fatalf("confirm at a level off the ladder: %v, want Protocol", err)
	}
	if err := port.Confirm(ev.Exchange, weida.Accepted); err != nil {
		t.Fatal(err)
	}
	r := <-replied
	if level, ok := r.meta.Achieved(); r.err != nil || !ok || level != weida.Accepted {
		t.Fatalf("reply: level %d present %v err %v, want Accepted", level, ok, r.err)
	}

	// A one-way producer ordering Accepted: the prompt reporter answers it.
	push := testRuntime(t).Pusher(weida.TrustByAddress())
	if err := push.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	cursors, err := push.SendReporting(ctxFor(t), []byte("four"), weida.ReportOrder{Levels: []uint64{weida.Accepted}})
	if err != nil {
		t.Fatal(err)
	}
	defer cursors.Close()
	ev = portEvent(t, port)
	if ev.Kind != weida.PortTransfer {
		t.Fatalf("event %v, want a transfer", ev.Kind)
	}
	body, err := ev.Transfer.Collect(16)
	if err != nil {
		t.Fatal(err)
	}
	rep := port.ProducerReporter(ev.Transfer)
	if rep == nil || rep != ev.Transfer.Reporter() {
		t.Fatal("the producer reporter is missing or not the transfer's one")
	}
	_ = rep.Report(weida.Accepted, uint64(len(body)))
	_ = rep.Finish()
	for {
		_, more, err := cursors.Changed(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	if got := cursors.Snapshot(); !maps.Equal(got, map[uint64]uint64{weida.Accepted: 4}) {
		t.Fatalf("producer's report %v, want Accepted at 4", got)
	}

	// A delivery toward a subscriber's connection, labelled as a repeat.
	s := testRuntime(t).Subscriber(weida.TrustByAddress())
	if err := s.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), ""); err != nil {
		t.Fatal(err)
	}
	sub := portEvent(t, port)
	for _, attempt := range []uint64{1, 3} {
		out, err := port.Deliver(ctxFor(t), sub.Conn, weida.TransferMeta{Topic: "t.1",
			Report: weida.ReportOrder{Levels: []uint64{weida.Processed}}}, attempt)
		if err != nil {
			t.Fatal(err)
		}
		dc := out.Cursors()
		_, _ = out.Write([]byte("job"))
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		got, meta, rr, err := s.RecvReporting(ctxFor(t), 16)
		if err != nil {
			t.Fatal(err)
		}
		n, labelled := meta.DeliveryAttempt()
		if string(got) != "job" || n != attempt || labelled != (attempt >= 2) {
			t.Fatalf("delivery %q attempt %d (key present %v), want attempt %d, key only from 2", got, n, labelled, attempt)
		}
		if ep, _ := meta.Endpoint(); ep != "/q" {
			t.Fatalf("delivery addressed to %q", ep)
		}
		_ = rr.Report(weida.Processed, 3)
		_ = rr.Finish()
		for {
			_, more, err := dc.Changed(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				break
			}
		}
		if off, ok := dc.Offset(weida.Processed); !ok || off != 3 {
			t.Fatalf("the consumer's Processed %d (present %v), want 3", off, ok)
		}
	}
}

func TestQueuePortCloseFreesThePath(t *testing.T) {
	b, port := servePort(t, "/q")
	req := testRuntime(t).Requester(weida.TrustByAddress())
	if err := req.Connect(ctxFor(t), b.URL("/q")); err != nil {
		t.Fatal(err)
	}
	_ = port.Close()
	select {
	case <-port.Done():
	default:
		t.Fatal("Done is open after Close")
	}
	if _, err := req.Request(ctxFor(t), []byte("x"), 16); !errors.Is(err, weida.ErrUnknownEndpoint) {
		t.Fatalf("request after Close: %v, want UnknownEndpoint", err)
	}
	again, err := b.QueuePort("/q")
	if err != nil {
		t.Fatalf("the path is still claimed after Close: %v", err)
	}
	_ = again.Close()
}

func TestSubscriberResendsItsFiltersAndGrantAfterARedial(t *testing.T) {
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	start := func(addr string) (*weida.Runtime, *weida.Binding, *weida.QueuePort) {
		rt, err := weida.NewRuntime(weida.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rt.Shutdown)
		b, err := rt.Listener().BindQUIC(addr, id)
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.QueuePort("/q")
		if err != nil {
			t.Fatal(err)
		}
		return rt, b, p
	}
	rt, b, port := start("127.0.0.1:0")
	s := testRuntime(t).Subscriber(weida.TrustByAddress(), fastRedial())
	if err := s.Connect(ctxFor(t), b.URL("/q")); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), "jobs.#"); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctxFor(t), 5); err != nil {
		t.Fatal(err)
	}
	// A broker that restarts has forgotten the subscription and its credit:
	// the redialled connection carries both again, as a new subscription.
	addr := b.LocalAddr()
	rt.Shutdown()
	_, _, port = start(addr)
	got := map[weida.PortEventKind]weida.PortEvent{}
	for len(got) < 2 {
		ev := portEvent(t, port)
		got[ev.Kind] = ev
	}
	if sub := got[weida.PortSubscribe]; sub.Filter != "jobs.#" {
		t.Fatalf("after the redial the subscription is %q", sub.Filter)
	}
	if cr := got[weida.PortCredit]; cr.Filter != "jobs.#" || cr.Limit != 5 {
		t.Fatalf("after the redial the grant is %d for %q, want 5 for jobs.#", cr.Limit, cr.Filter)
	}
}
