package weida

import "testing"

// realInFlow opens a datagram flow from one runtime to an Acceptor of
// another and takes it: a real inbound flow to hand to other routes.
func realInFlow(t *testing.T) *IncomingFlow {
	t.Helper()
	ctx := queueTestCtx(t)
	server, b, client := boundAndDialling(t, Config{Datagrams: true})
	a, err := server.Listener().Acceptor("/f")
	if err != nil {
		t.Fatal(err)
	}
	p := client.Peer(TrustByAddress())
	if err := p.Connect(ctx, b.URL("/f")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.OpenFlow(ctx, FlowMeta{}); err != nil {
		t.Fatal(err)
	}
	in, err := a.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := in.(*IncomingFlow)
	if !ok {
		t.Fatalf("accepted %T, want a flow", in)
	}
	return f
}

// A flow that reaches an Acceptor as it closes is refused, not left in its
// queue of flows: close empties that queue once, and the enqueue's select
// could pick the queue over the closed signal after that emptying.
func TestAFlowArrivingAsItsAcceptorClosesIsNotLeftInTheQueue(t *testing.T) {
	f := realInFlow(t)
	srv, err := NewRuntime(Config{Datagrams: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	raceArrivalAgainstClose(t, "flow(s)", func(int) (arrive, closeIt func(), left func() int) {
		a, err := srv.Listener().Acceptor("/race")
		if err != nil {
			t.Fatal(err)
		}
		r := srv.Listener().lookup("/race") // what a connection's router found
		return func() { dispatchFlow(r, f.in) }, func() { _ = a.Close() }, func() int { return len(a.q.flows) }
	})
}
