package weida_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
)

// pairServer is a runtime with a bound pair at /pair.
type pairServer struct {
	rt   *weida.Runtime
	b    *weida.Binding
	pair *weida.Paired
	url  string
}

// pairBind binds id at addr and registers a bound pair at /pair.
func pairBind(t *testing.T, addr string, id *weida.Identity) *pairServer {
	t.Helper()
	rt, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Pair("/pair")
	if err != nil {
		t.Fatal(err)
	}
	return &pairServer{rt: rt, b: b, pair: p, url: b.URL("/pair")}
}

func pairServe(t *testing.T) *pairServer {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return pairBind(t, "127.0.0.1:0", id)
}

// pairDial creates a dialling pair in a fresh runtime connected to url.
func pairDial(t *testing.T, url string, opts ...weida.EndpointOption) *weida.Paired {
	t.Helper()
	p := testRuntime(t).Pair(weida.TrustByAddress(), opts...)
	if err := p.Connect(ctxFor(t), url); err != nil {
		t.Fatalf("pair connect %s: %v", url, err)
	}
	return p
}

// pairExpect receives one transfer and checks its payload.
func pairExpect(t *testing.T, p *weida.Paired, want string) {
	t.Helper()
	got, _, err := p.Recv(ctxFor(t), 1<<20)
	if err != nil || string(got) != want {
		t.Fatalf("recv %q, %v; want %q", got, err, want)
	}
}

// pairSendRefused writes a payload larger than the peer's stream window, so
// a refusal is observable at the writer (SEMANTICS.md §2, refusal race),
// and returns the error the writer saw.
func pairSendRefused(t *testing.T, p *weida.Paired) error {
	t.Helper()
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctxFor(t), out.Cancel)
	defer stop()
	chunk := make([]byte, 64<<10)
	for written := 0; written < 64<<20; written += len(chunk) {
		if _, err := out.Write(chunk); err != nil {
			return err
		}
	}
	out.Cancel()
	return nil
}

func TestPairBothDirectionsConcurrently(t *testing.T) {
	srv := pairServe(t)
	dialling := pairDial(t, srv.url)
	const n = 20
	ends := []struct {
		name string
		p    *weida.Paired
	}{{"dialling", dialling}, {"bound", srv.pair}}

	var wg sync.WaitGroup
	received := make([][]string, len(ends))
	errc := make(chan error, 4)
	for i, end := range ends {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for k := range n {
				if err := end.p.Send(ctxFor(t), fmt.Appendf(nil, "%s-%d", end.name, k)); err != nil {
					errc <- fmt.Errorf("%s send: %w", end.name, err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range n {
				got, _, err := end.p.Recv(ctxFor(t), 64)
				if err != nil {
					errc <- fmt.Errorf("%s recv: %w", end.name, err)
					return
				}
				received[i] = append(received[i], string(got))
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	for i, end := range ends {
		other := ends[1-i].name
		var want []string
		for k := range n {
			want = append(want, fmt.Sprintf("%s-%d", other, k))
		}
		slices.Sort(want)
		slices.Sort(received[i])
		if !slices.Equal(received[i], want) {
			t.Fatalf("%s end received %q, want %q", end.name, received[i], want)
		}
	}
}

func TestPairSecondPeerRefusedFirstKept(t *testing.T) {
	srv := pairServe(t)
	first := pairDial(t, srv.url)
	if err := first.Send(ctxFor(t), []byte("first")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "first")

	second := pairDial(t, srv.url)
	if err := pairSendRefused(t, second); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("second peer's transfer: %v, want LimitExceeded", err)
	}

	if err := first.Send(ctxFor(t), []byte("still mine")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "still mine")
	if err := srv.pair.Send(ctxFor(t), []byte("back")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, first, "back")
	if n := srv.pair.PeerCount(); n != 1 {
		t.Fatalf("bound peer count %d, want 1", n)
	}
}

func TestPairDepartedPeerFreesThePath(t *testing.T) {
	srv := pairServe(t)
	events := srv.pair.Events()
	firstRT := testRuntime(t)
	first := firstRT.Pair(weida.TrustByAddress())
	if err := first.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	if err := first.Send(ctxFor(t), []byte("first")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "first")
	nextEvent(t, events, weida.EventConnected)

	firstRT.Shutdown()
	nextEvent(t, events, weida.EventLost)
	if n := srv.pair.PeerCount(); n != 0 {
		t.Fatalf("bound peer count %d after the owner left, want 0", n)
	}

	next := pairDial(t, srv.url)
	if err := next.Send(ctxFor(t), []byte("next")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "next")
	if err := srv.pair.Send(ctxFor(t), []byte("to the new owner")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, next, "to the new owner")
}

func TestPairConnectsOnce(t *testing.T) {
	srv := pairServe(t)
	p := pairDial(t, srv.url)
	if err := p.Connect(ctxFor(t), srv.url); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("second connect: %v, want LimitExceeded", err)
	}
	if p.Path() != "/pair" || srv.pair.Path() != "/pair" {
		t.Fatalf("paths %q and %q, want /pair", p.Path(), srv.pair.Path())
	}
	if err := srv.pair.Connect(ctxFor(t), srv.url); weida.KindOf(err) != weida.KindRuntime {
		t.Fatalf("connect on the bound end: %v, want a Runtime error", err)
	}
	failed := testRuntime(t).Pair(weida.TrustByAddress())
	if err := failed.Connect(ctxFor(t), "weida://127.0.0.1/pair"); !errors.Is(err, weida.ErrInvalidAddress) {
		t.Fatalf("connect to a bad url: %v, want InvalidAddress", err)
	}
	if err := failed.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatalf("a failed connect must not count: %v", err)
	}
}

func TestPairBoundFirstSendWaitsForThePeerToSpeak(t *testing.T) {
	srv := pairServe(t)
	p := pairDial(t, srv.url)

	// Negative check, necessarily bounded: nobody has spoken, so the bound
	// end has nowhere to send and must still be waiting when ctx ends.
	short, cancel := context.WithTimeout(ctxFor(t), 100*time.Millisecond)
	defer cancel()
	if err := srv.pair.Send(short, []byte("too early")); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("bound send before the peer spoke: %v, want Canceled by ctx", err)
	}

	sent := make(chan error, 1)
	go func() { sent <- srv.pair.Send(ctxFor(t), []byte("answer")) }()
	if err := p.Send(ctxFor(t), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "hello")
	if err := <-sent; err != nil {
		t.Fatalf("bound send once the peer spoke: %v", err)
	}
	pairExpect(t, p, "answer")
}

func TestPairCanceledTransferIsNeverComplete(t *testing.T) {
	srv := pairServe(t)
	dialling := pairDial(t, srv.url)
	if err := dialling.Send(ctxFor(t), []byte("claim")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "claim")

	for _, tc := range []struct {
		name     string
		from, to *weida.Paired
	}{
		{"dialling to bound", dialling, srv.pair},
		{"bound to dialling", srv.pair, dialling},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.from.Open(ctxFor(t), weida.TransferMeta{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Write([]byte("partial")); err != nil {
				t.Fatal(err)
			}
			in, err := tc.to.RecvStream(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			out.Cancel()
			if _, err := io.ReadAll(in); !errors.Is(err, weida.ErrCanceled) {
				t.Fatalf("reading a cancelled transfer: %v, want Canceled (never EOF)", err)
			}
		})
	}
}

func TestPairInteroperatesWithRawEndpoints(t *testing.T) {
	t.Run("dialling pair to acceptor", func(t *testing.T) {
		_, b, a := serve(t, "/raw")
		p := pairDial(t, b.URL("/raw"))
		if err := p.Send(ctxFor(t), []byte("to a raw acceptor")); err != nil {
			t.Fatal(err)
		}
		in, err := a.Accept(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		tr, ok := in.(*weida.IncomingTransfer)
		if !ok {
			t.Fatalf("accepted %T, want a one-way transfer", in)
		}
		if got, err := tr.Collect(64); err != nil || string(got) != "to a raw acceptor" {
			t.Fatalf("collect %q, %v", got, err)
		}
	})
	t.Run("raw peer to bound pair", func(t *testing.T) {
		srv := pairServe(t)
		peer := connect(t, srv.url)
		out, err := peer.Open(ctxFor(t), weida.TransferMeta{ContentType: "text/plain"})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = out.Write([]byte("from a raw peer"))
		if _, err := out.Finish(); err != nil {
			t.Fatal(err)
		}
		got, meta, err := srv.pair.Recv(ctxFor(t), 64)
		if err != nil || string(got) != "from a raw peer" {
			t.Fatalf("recv %q, %v", got, err)
		}
		if ct, _ := meta.ContentType(); ct != "text/plain" {
			t.Fatalf("content type %q", ct)
		}
		if _, err := exchange(t, peer, []byte("q")); !errors.Is(err, weida.ErrUnsupported) {
			t.Fatalf("exchange at a pair path: %v, want Unsupported", err)
		}
	})
}

func TestPairClosedDiallingPairFreesItsPooledRoute(t *testing.T) {
	srv := pairServe(t)
	rt := testRuntime(t)
	first := rt.Pair(weida.TrustByAddress())
	if err := first.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	second := rt.Pair(weida.TrustByAddress())
	if err := second.Connect(ctxFor(t), srv.url); !errors.Is(err, weida.ErrAlreadyRegistered) {
		t.Fatalf("second pair on the pooled connection: %v, want AlreadyRegistered", err)
	}
	_ = first.Close()
	if err := second.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatalf("connect after the first pair closed: %v", err)
	}
	if err := second.Send(ctxFor(t), []byte("second")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "second")
	if err := srv.pair.Send(ctxFor(t), []byte("back")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, second, "back")
}

func TestPairRedialsAfterTheBoundSideRestarts(t *testing.T) {
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	srv := pairBind(t, "127.0.0.1:0", id)
	p := testRuntime(t).Pair(weida.TrustByAddress(), fastRedial())
	events := p.Events()
	if err := p.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, weida.EventConnected)
	if err := p.Send(ctxFor(t), []byte("before")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "before")

	srv.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)
	// Sent while down: it waits in the outbox for the redial.
	if err := p.Send(ctxFor(t), []byte("during the outage")); err != nil {
		t.Fatal(err)
	}
	restarted := pairBind(t, srv.b.LocalAddr(), id)
	if e := nextEvent(t, events, weida.EventConnected); e.Fingerprint != id.Fingerprint() {
		t.Fatalf("reconnected to %s", e.Fingerprint)
	}
	pairExpect(t, restarted.pair, "during the outage")
	if err := restarted.pair.Send(ctxFor(t), []byte("after")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, p, "after")
}

func TestPairGoroutinesEndAfterShutdown(t *testing.T) {
	check := busGoroutineBaseline(t)
	srv := pairServe(t)
	client := testRuntime(t)
	dialling := client.Pair(weida.TrustByAddress())
	if err := dialling.Connect(ctxFor(t), srv.url); err != nil {
		t.Fatal(err)
	}
	if err := dialling.Send(ctxFor(t), []byte("ping")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, srv.pair, "ping")
	if err := srv.pair.Send(ctxFor(t), []byte("pong")); err != nil {
		t.Fatal(err)
	}
	pairExpect(t, dialling, "pong")

	_ = dialling.Close() // ends its outbox writer, which Shutdown does not own
	client.Shutdown()
	srv.rt.Shutdown()
	check()
}
