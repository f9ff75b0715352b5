package security

import (
	"context"
	"log/slog"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker"
	"github.com/weida-go/weida/core/broker/access"
	"github.com/weida-go/weida/core/wire"
	"github.com/weida-go/weida/internal/rawpeer"
)

// jobs is the one queue of every broker here.
const jobs = "/jobs"

// guarded is a broker serving jobs under access rules, with the refusals
// it logs as events a test can wait for.
type guarded struct {
	*broker.Broker
	url      string
	refusals chan string // "produce" or "consume", once per key and action
}

func startGuardedBroker(t *testing.T, rules *access.Rules) *guarded {
	t.Helper()
	g := &guarded{refusals: make(chan string, 64)}
	cfg := broker.Config{Queues: []broker.QueueConfig{{Path: jobs}}, Access: rules,
		AccessLog: slog.New(refusalHandler{g.refusals})}
	rt, err := weida.NewRuntime(broker.RuntimeConfig(weida.Config{}, cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	b, err := broker.New(rt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	binding, err := rt.Listener().BindQUIC("127.0.0.1:0", newIdentity(t), b.BindOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = b.Serve(context.Background())
	}()
	t.Cleanup(func() { b.Close(); <-served })
	g.Broker, g.url = b, binding.URL(jobs)
	return g
}

// awaitRefusal waits for the broker to log a refusal of action.
func (g *guarded) awaitRefusal(t *testing.T, action string) {
	t.Helper()
	for {
		select {
		case got := <-g.refusals:
			if got == action {
				return
			}
		case <-ctxFor(t).Done():
			t.Fatalf("the broker never refused a %s", action)
		}
	}
}

func (g *guarded) stats(t *testing.T) broker.QueueStats {
	t.Helper()
	s, err := g.Stats(ctxFor(t), jobs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// refusalHandler hands each logged refusal's action to a channel.
type refusalHandler struct{ actions chan<- string }

func (h refusalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h refusalHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h refusalHandler) WithGroup(string) slog.Handler            { return h }
func (h refusalHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "action" {
			select {
			case h.actions <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}

// onlyFor lets prod produce to jobs and cons consume from it; every
// client must present a key.
func onlyFor(prod, cons *weida.Identity) *access.Rules {
	off := false
	return &access.Rules{Clients: access.AnyKey, Anonymous: &off, Queues: map[string]access.QueueRules{
		jobs: {Produce: []string{prod.Fingerprint().String()}, Consume: []string{cons.Fingerprint().String()}}}}
}

// A producer whose key may not produce is refused on a one-way transfer
// (STOP_SENDING REJECTED, seen at the raw stream before its FIN) and on an
// exchange (Rejected), and the listed producer on the same broker is
// served; nothing of the refused is held.
func TestBrokerRefusesAnUnlistedProducer(t *testing.T) {
	prod, cons, stranger := newIdentity(t), newIdentity(t), newIdentity(t)
	g := startGuardedBroker(t, onlyFor(prod, cons))

	raw := dialRaw(t, g.url, stranger)
	s, err := raw.UniOpen(rawpeer.Data(jobs, []byte("forged job")))
	if err != nil {
		t.Fatal(err)
	}
	if code, err := rawpeer.StopCode(ctxFor(t), s); err != nil || code != wire.CodeRejected {
		t.Fatalf("a one-way transfer from an unlisted key: stopped %v (%v), want REJECTED", code, err)
	}
	if err := exchange(t, g.url, stranger); weida.KindOf(err) != weida.KindRejected {
		t.Fatalf("an exchange from an unlisted key: %v, want Rejected", err)
	}
	if err := exchange(t, g.url, cons); weida.KindOf(err) != weida.KindRejected {
		t.Fatalf("an exchange from a key that may only consume: %v, want Rejected", err)
	}
	if err := exchange(t, g.url, prod); err != nil {
		t.Fatalf("the listed producer: %v", err)
	}
	if st := g.stats(t); st.Ready != 1 || st.Access.Produce != 3 {
		t.Fatalf("stats %+v: want 1 ready (the listed producer's) and 3 produce refusals", st)
	}
}

// A consumer whose key may not consume holds no subscription and no
// credit and is handed nothing; the listed consumer takes the message.
// A CURSOR from another connection cannot settle a delivery: report ids
// belong to the connection the delivery went to, so core stops it
// CANCELED before the broker hears of it, and the delivery stays out.
func TestBrokerServesOnlyTheListedConsumerAndItsReports(t *testing.T) {
	prod, cons, stranger := newIdentity(t), newIdentity(t), newIdentity(t)
	g := startGuardedBroker(t, onlyFor(prod, cons))
	// SUBSCRIBE has no reply half: the refusal is the stream's stop.
	refused, err := dialRaw(t, g.url, stranger).UniOpen(rawpeer.Encode(wire.KindSubscribe, &wire.Subscribe{Endpoint: jobs}))
	if err != nil {
		t.Fatal(err)
	}
	if code, err := rawpeer.StopCode(ctxFor(t), refused); err != nil || code != wire.CodeRejected {
		t.Fatalf("a SUBSCRIBE from a key that may not consume: stopped %v (%v), want REJECTED", code, err)
	}
	subscriber(t, g.url, stranger, 10)
	g.awaitRefusal(t, "consume")
	if err := exchange(t, g.url, prod); err != nil {
		t.Fatal(err)
	}
	worker := subscriber(t, g.url, cons, 10)
	body, meta, report, err := worker.RecvReporting(ctxFor(t), 1<<10)
	if err != nil || report == nil {
		t.Fatalf("the listed consumer: %v (report %v)", err, report)
	}
	t.Cleanup(func() { _ = report.Finish() })

	raw := dialRaw(t, g.url, stranger)
	for id := range uint64(4) {
		frame := wire.AppendCursorRecord(rawpeer.Encode(wire.KindCursor, &wire.CursorHead{ReportID: id}),
			wire.CursorRecord{Level: weida.Processed, Offset: uint64(len(body))})
		s, err := raw.UniOpen(frame)
		if err != nil {
			t.Fatal(err)
		}
		if code, err := rawpeer.StopCode(ctxFor(t), s); err != nil || code != wire.CodeCanceled {
			t.Fatalf("a foreign CURSOR for report %d: stopped %v (%v), want CANCELED", id, code, err)
		}
	}
	if st := g.stats(t); st.Unsettled != 1 || st.Consumers != 1 || st.Access.Consume == 0 {
		t.Fatalf("stats %+v: want the delivery still out, one subscription, the thief's frames refused", st)
	}
	if attempt, _ := meta.DeliveryAttempt(); attempt > 1 {
		t.Fatalf("the first delivery carries attempt %d", attempt)
	}
}

// dialRaw is a raw connection presenting id that said HELLO.
func dialRaw(t *testing.T, url string, id *weida.Identity) *rawpeer.Conn {
	t.Helper()
	c, err := rawpeer.Dial(ctxFor(t), url, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.Uni(rawpeer.Hello()); err != nil {
		t.Fatal(err)
	}
	return c
}

// exchange sends one message to url as an exchange presenting id.
func exchange(t *testing.T, url string, id *weida.Identity) error {
	t.Helper()
	r := newRuntime(t).Requester(weida.TrustByAddress(), weida.WithClientIdentity(id))
	if err := r.Connect(ctxFor(t), url); err != nil {
		return err
	}
	_, _, err := r.RequestWith(ctxFor(t), weida.TransferMeta{}, []byte("job"), 64)
	return err
}

// subscriber subscribes to url presenting id and grants credit.
func subscriber(t *testing.T, url string, id *weida.Identity, credit uint64) *weida.Subscriber {
	t.Helper()
	s := newRuntime(t).Subscriber(weida.TrustByAddress(), weida.WithClientIdentity(id))
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Connect(ctxFor(t), url); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctxFor(t), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(ctxFor(t), credit); err != nil {
		t.Fatal(err)
	}
	return s
}
