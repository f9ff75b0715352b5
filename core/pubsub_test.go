package weida_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/internal/faults"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// pubsubServer is a runtime bound on loopback with a publisher at path.
type pubsubServer struct {
	rt   *weida.Runtime
	b    *weida.Binding
	pub  *weida.Publisher
	path string
}

// pubsubServeAt binds id at addr with cfg and registers a publisher at path.
func pubsubServeAt(t *testing.T, cfg weida.Config, addr string, id *weida.Identity, path string) *pubsubServer {
	t.Helper()
	rt, err := weida.NewRuntime(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Shutdown)
	b, err := rt.Listener().BindQUIC(addr, id)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := b.Publisher(path)
	if err != nil {
		t.Fatal(err)
	}
	return &pubsubServer{rt: rt, b: b, pub: pub, path: path}
}

func pubsubServe(t *testing.T, cfg weida.Config) *pubsubServer {
	t.Helper()
	id, err := weida.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return pubsubServeAt(t, cfg, "127.0.0.1:0", id, "/prices")
}

func (s *pubsubServer) url() string { return s.b.URL(s.path) }

// pubsubSubscribe connects a subscriber of its own runtime (so its own
// connection) to url with filters, and waits until the publisher applied
// them.
func pubsubSubscribe(t *testing.T, srv *pubsubServer, filters ...string) *weida.Subscriber {
	t.Helper()
	before := srv.pub.FilterCount()
	sub := testRuntime(t).Subscriber(weida.TrustByAddress())
	if err := sub.Connect(ctxFor(t), srv.url()); err != nil {
		t.Fatalf("connect: %v", err)
	}
	for _, f := range filters {
		if err := sub.Subscribe(ctxFor(t), f); err != nil {
			t.Fatalf("subscribe %q: %v", f, err)
		}
	}
	pubsubAwait(t, "the publisher to apply the filters", func() bool { return srv.pub.FilterCount() == before+len(filters) })
	return sub
}

// pubsubAwait waits until cond holds. SUBSCRIBE has no reply, so the
// publisher's counters are the only evidence that a filter was applied;
// polling them is bounded and never decides a result by itself.
func pubsubAwait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// pubsubRecvTopics receives n copies and returns their topics, sorted.
func pubsubRecvTopics(t *testing.T, sub *weida.Subscriber, n int) []string {
	t.Helper()
	var topics []string
	for range n {
		_, meta, err := sub.Recv(ctxFor(t), 1<<20)
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		topic, _ := meta.Topic()
		topics = append(topics, topic)
	}
	slices.Sort(topics)
	return topics
}

// pubsubPublishPromptly publishes and fails the test if Publish blocks:
// never waiting for a subscriber is the property under test.
func pubsubPublishPromptly(t *testing.T, pub *weida.Publisher, topic string, payload []byte) int {
	t.Helper()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := pub.Publish(topic, payload)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("publish %q: %v", topic, r.err)
		}
		return r.n
	case <-time.After(5 * time.Second):
		t.Fatalf("publish %q blocked on a subscriber", topic)
		return 0
	}
}

func TestPubSubFiltering(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	topics := []string{"px.eur", "fx.chf", "px", "px.eur.spot", "px."}
	cases := []struct {
		filter string
		want   []string // sorted
	}{
		{"px.#", []string{"px", "px.", "px.eur", "px.eur.spot"}},
		{"fx.chf", []string{"fx.chf"}},
		{"px.", []string{"px."}},
		{"px.*", []string{"px.", "px.eur"}},
		{"*", []string{"px"}},
		{"*.eur", []string{"px.eur"}},
		{"", []string{"fx.chf", "px", "px.", "px.eur", "px.eur.spot"}},
		{"#", []string{"fx.chf", "px", "px.", "px.eur", "px.eur.spot"}},
	}
	subs := make([]*weida.Subscriber, len(cases))
	for i, c := range cases {
		subs[i] = pubsubSubscribe(t, srv, c.filter)
	}
	for _, topic := range topics {
		want := 0
		for _, c := range cases {
			if slices.Contains(c.want, topic) {
				want++
			}
		}
		if n, err := srv.pub.Publish(topic, []byte(topic)); err != nil || n != want {
			t.Fatalf("publish %q reached %d (%v), want %d", topic, n, err, want)
		}
	}
	for i, c := range cases {
		if got := pubsubRecvTopics(t, subs[i], len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("filter %q received %q, want %q", c.filter, got, c.want)
		}
	}
	if got := srv.pub.SubscriberCount(); got != len(cases) {
		t.Fatalf("subscriber count %d, want %d", got, len(cases))
	}
}

func TestPubSubOneCopyPerConnectionAndUnsubscribe(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	both := pubsubSubscribe(t, srv, "px.#", "px.eur", "#")
	other := pubsubSubscribe(t, srv, "px.eur")
	if n, _ := srv.pub.Publish("px.eur", []byte("1.08")); n != 2 {
		t.Fatalf("reached %d, want one copy per subscriber connection (2)", n)
	}
	for _, sub := range []*weida.Subscriber{both, other} {
		if got := pubsubRecvTopics(t, sub, 1); got[0] != "px.eur" {
			t.Fatalf("received %q", got)
		}
	}

	for _, f := range []string{"px.#", "#", "never.subscribed"} {
		if err := both.Unsubscribe(ctxFor(t), f); err != nil {
			t.Fatalf("unsubscribe %q: %v", f, err)
		}
	}
	pubsubAwait(t, "the unsubscriptions", func() bool { return srv.pub.FilterCount() == 2 })
	if n, _ := srv.pub.Publish("px.gbp", nil); n != 0 {
		t.Fatalf("px.gbp reached %d after unsubscribing, want 0", n)
	}
	if err := other.Unsubscribe(ctxFor(t), "px.eur"); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the last unsubscription", func() bool { return srv.pub.SubscriberCount() == 1 })
	if n, _ := srv.pub.Publish("px.eur", []byte("1.09")); n != 1 {
		t.Fatalf("reached %d, want 1", n)
	}
	if both.FilterCount() != 1 || other.FilterCount() != 0 {
		t.Fatalf("filter counts %d and %d, want 1 and 0", both.FilterCount(), other.FilterCount())
	}
}

func TestPubSubPublishToNobodyIsZero(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	if n, err := srv.pub.Publish("px.eur", []byte("1.08")); n != 0 || err != nil {
		t.Fatalf("publish to nobody: %d, %v; want 0, nil", n, err)
	}
	if srv.pub.Dropped() != 0 {
		t.Fatalf("publishing to nobody counted %d drops", srv.pub.Dropped())
	}
}

func TestPubSubEarlySubscriptionBeforeThePublisher(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	rt := testRuntime(t)
	b, err := rt.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	sub := testRuntime(t).Subscriber(weida.TrustByAddress())
	if err := sub.Subscribe(ctxFor(t), "px.#"); err != nil {
		t.Fatalf("subscribe before connect: %v", err)
	}
	if err := sub.Connect(ctxFor(t), b.URL("/late")); err != nil {
		t.Fatal(err)
	}
	pub, err := b.Publisher("/late")
	if err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the early filter", func() bool { return pub.FilterCount() == 1 })

	// The table belongs to the connection, not to the publisher: a new
	// publisher at the path finds the subscription without it being re-sent.
	if err := pub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Publish("px.eur", nil); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("publish after close: %v, want Canceled", err)
	}
	again, err := b.Publisher("/late")
	if err != nil {
		t.Fatal(err)
	}
	if again.FilterCount() != 1 {
		t.Fatalf("filters at a re-registered path: %d, want 1", again.FilterCount())
	}
	if n, _ := again.Publish("px.eur", []byte("1.08")); n != 1 {
		t.Fatalf("reached %d, want 1", n)
	}
	if got := pubsubRecvTopics(t, sub, 1); got[0] != "px.eur" {
		t.Fatalf("received %q", got)
	}
}

func TestPubSubMetaCarriesTopicEndpointLengthAndTrace(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "px.*")
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	meta := weida.TransferMeta{ContentType: "text/plain", Traceparent: traceparent, Tracestate: "vendor=1"}
	if n, err := srv.pub.PublishWith("px.eur", []byte("1.08"), meta); n != 1 || err != nil {
		t.Fatalf("publish: %d, %v", n, err)
	}
	payload, m, err := sub.Recv(ctxFor(t), 64)
	if err != nil || string(payload) != "1.08" {
		t.Fatalf("recv %q, %v", payload, err)
	}
	fields := []struct {
		name string
		get  func() (string, bool)
		want string
	}{
		{"topic", m.Topic, "px.eur"},
		{"endpoint", m.Endpoint, "/prices"},
		{"content type", m.ContentType, "text/plain"},
		{"traceparent", m.Traceparent, traceparent},
		{"tracestate", m.Tracestate, "vendor=1"},
	}
	for _, f := range fields {
		if got, ok := f.get(); got != f.want || !ok {
			t.Errorf("%s = %q, %v; want %q", f.name, got, ok, f.want)
		}
	}
	if n, ok := m.ContentLen(); !ok || n != 4 {
		t.Errorf("content_len = %d, %v; want 4", n, ok)
	}
	if fp, ok := m.Peer(); !ok || fp != srv.b.Fingerprint() {
		t.Errorf("peer = %v, %v; want the publisher's key", fp, ok)
	}
}

func TestPubSubRefusesBadPublications(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	pubsubSubscribe(t, srv, "#")
	cases := []struct {
		name    string
		topic   string
		payload []byte
		want    error
	}{
		{"payload above the subscriber budget", "big", make([]byte, weida.DefaultSubscriberBufferBytes+1), weida.ErrLimitExceeded},
		{"topic above the wire cap", strings.Repeat("t", wire.CapTopic+1), nil, weida.ErrProtocol},
	}
	for _, c := range cases {
		if n, err := srv.pub.Publish(c.topic, c.payload); n != 0 || !errors.Is(err, c.want) {
			t.Errorf("%s: %d, %v; want 0, %v", c.name, n, err, c.want)
		}
	}
	if srv.pub.Dropped() != 0 {
		t.Fatalf("a refused publication was charged to subscribers: %d drops", srv.pub.Dropped())
	}
	if n, err := srv.pub.Publish("whole", make([]byte, weida.DefaultSubscriberBufferBytes)); n != 1 || err != nil {
		t.Fatalf("a payload of exactly the budget: %d, %v; want 1, nil", n, err)
	}
}

func TestPubSubPublisherPathRefusesInbound(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	p := connect(t, srv.url())
	if _, err := exchange(t, p, []byte("q")); !errors.Is(err, weida.ErrUnsupported) {
		t.Fatalf("exchange to a publisher: %v, want Unsupported", err)
	}
	out, err := p.Open(ctxFor(t), weida.TransferMeta{})
	if err != nil {
		t.Fatal(err)
	}
	// Beyond the stream window the refusal must reach the sender (decision 0005).
	_, werr := out.Write(make([]byte, 4<<20))
	if werr == nil {
		_, werr = out.Finish()
	}
	if !errors.Is(werr, weida.ErrUnsupported) {
		t.Fatalf("transfer to a publisher: %v, want Unsupported", werr)
	}
}

func TestPubSubSecondSubscriberOnOneConnectionIsAlreadyRegistered(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	rt := testRuntime(t)
	first := rt.Subscriber(weida.TrustByAddress())
	if err := first.Connect(ctxFor(t), srv.url()); err != nil {
		t.Fatal(err)
	}
	second := rt.Subscriber(weida.TrustByAddress())
	if err := second.Connect(ctxFor(t), srv.url()); !errors.Is(err, weida.ErrAlreadyRegistered) {
		t.Fatalf("second subscriber on the pooled connection: %v, want AlreadyRegistered", err)
	}
	if err := first.Subscribe(ctxFor(t), "#"); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the first subscriber's filter", func() bool { return srv.pub.FilterCount() == 1 })
	if n, _ := srv.pub.Publish("still.served", nil); n != 1 {
		t.Fatalf("reached %d, want 1", n)
	}
	pubsubRecvTopics(t, first, 1)
}

func TestPubSubInvalidFiltersFailLocally(t *testing.T) {
	sub := testRuntime(t).Subscriber(weida.TrustByAddress())
	for _, f := range []string{"px.#.eur", "px*", "a.b#", strings.Repeat("f", wire.CapFilter+1)} {
		if err := sub.Subscribe(ctxFor(t), f); !errors.Is(err, weida.ErrProtocol) {
			t.Errorf("subscribe %q: %v, want Protocol", f, err)
		}
	}
	if sub.FilterCount() != 0 {
		t.Fatalf("a refused filter was kept: %d", sub.FilterCount())
	}
}

func TestPubSubSubscriberRefusesA257thFilter(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	filters := make([]string, 256)
	for i := range filters {
		filters[i] = fmt.Sprintf("f%d", i)
	}
	sub := pubsubSubscribe(t, srv, filters...)
	if err := sub.Subscribe(ctxFor(t), "f0"); err != nil {
		t.Fatalf("a repeated filter at the limit: %v", err)
	}
	if err := sub.Subscribe(ctxFor(t), "one.too.many"); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("257th filter: %v, want LimitExceeded", err)
	}
	if sub.PeerCount() != 1 || srv.pub.FilterCount() != 256 {
		t.Fatalf("peers %d, publisher filters %d; want 1 and 256", sub.PeerCount(), srv.pub.FilterCount())
	}
}

// pubsubSilentHandler is a raw dialling side that takes nothing inbound.
type pubsubSilentHandler struct{}

func (pubsubSilentHandler) Data(_ *transport.Conn, in *transport.InStream) {
	in.Refuse(wire.CodeUnknownEndpoint)
}
func (pubsubSilentHandler) Exchange(_ *transport.Conn, ex *transport.Exchange) {
	ex.Refuse(wire.ErrorUnknownEndpoint, wire.CodeUnknownEndpoint)
}
func (pubsubSilentHandler) Control(*transport.Conn, wire.Kind, *wire.Subscribe, *wire.Credit) {}
func (pubsubSilentHandler) Cursor(_ *transport.Conn, _ wire.CursorHead, s *transport.CursorStream) {
	s.Stop(wire.CodeCanceled)
}
func (pubsubSilentHandler) Closed(*transport.Conn, error) {}

// A raw peer bypasses the subscriber's own limit: the publisher must count
// distinct filters over every path of the connection and close it.
func TestPubSubMoreThan256FiltersClosesTheConnection(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	other, err := srv.b.Publisher("/rates")
	if err != nil {
		t.Fatal(err)
	}
	addr, err := weida.ParseAddress(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := transport.Dial(ctxFor(t), addr, weida.TrustByAddress(), nil, transport.NewConfig(), pubsubSilentHandler{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(wire.CodeNoError, "") })
	send := func(path, filter string) {
		t.Helper()
		if _, err := conn.OpenControl(ctxFor(t), wire.KindSubscribe, &wire.Subscribe{Endpoint: path, Filter: filter}); err != nil {
			t.Fatalf("send SUBSCRIBE %s %q: %v", path, filter, err)
		}
	}
	for i := range 128 {
		send("/prices", fmt.Sprintf("f%d", i))
	}
	pubsubAwait(t, "128 filters at /prices", func() bool { return srv.pub.FilterCount() == 128 })
	for i := range 128 {
		send("/prices", fmt.Sprintf("f%d", i)) // repeats do not count again
		send("/rates", fmt.Sprintf("f%d", i))
	}
	pubsubAwait(t, "128 filters at /rates", func() bool { return other.FilterCount() == 128 })
	if err := conn.Err(); err != nil {
		t.Fatalf("256 distinct filters closed the connection: %v", err)
	}
	send("/rates", "one.too.many")
	select {
	case <-conn.Done():
	case <-ctxFor(t).Done():
		t.Fatal("the 257th filter did not close the connection")
	}
	if err := conn.Err(); !errors.Is(err, weida.ErrLimitExceeded) {
		t.Fatalf("connection ended with %v, want LIMIT_EXCEEDED", err)
	}
	pubsubAwait(t, "the closed connection's filters to go", func() bool {
		return srv.pub.FilterCount() == 0 && other.FilterCount() == 0
	})
}

func TestPubSubSlowSubscriberDropsInsteadOfBlocking(t *testing.T) {
	srv := pubsubServe(t, weida.Config{EndpointQueue: 4})
	fast := pubsubSubscribe(t, srv, "#")
	pubsubSubscribe(t, srv, "#") // the slow one: it never reads

	type publication struct {
		topic   string
		payload []byte
	}
	big := publication{"big", bytes.Repeat([]byte("B"), 3<<20)} // beyond the 1 MiB stream window: the slow writer stalls on the first
	small := publication{"small", bytes.Repeat([]byte("s"), 1<<10)}
	publishes := append(slices.Repeat([]publication{big}, 3), slices.Repeat([]publication{small}, 12)...)
	slowMissed := map[string]uint64{}
	for _, p := range publishes {
		n := pubsubPublishPromptly(t, srv.pub, p.topic, p.payload)
		if n < 1 || n > 2 {
			t.Fatalf("%s reached %d", p.topic, n)
		}
		slowMissed[p.topic] += uint64(2 - n)
		// The fast subscriber reads each copy before the next publication,
		// so only the slow one can run out of room.
		got, meta, err := fast.Recv(ctxFor(t), 4<<20)
		if topic, _ := meta.Topic(); err != nil || topic != p.topic || !bytes.Equal(got, p.payload) {
			t.Fatalf("fast subscriber: topic %q, %d bytes, %v", topic, len(got), err)
		}
	}

	// Three 3 MiB copies cannot all fit 8 MiB while the first is stuck:
	// exactly the third is dropped on the budget, never a queued one.
	if got, ok := srv.pub.DroppedOn("big"); !ok || got != (weida.DropCounts{Total: 1, SubscriberBudget: 1}) {
		t.Fatalf("drops on big: %+v, %v; want one budget drop", got, ok)
	}
	// At most 4 copies wait in the slow subscriber's queue: the rest of the
	// 12 small ones are dropped on arrival for a full queue.
	smallDrops, ok := srv.pub.DroppedOn("small")
	if !ok || smallDrops != (weida.DropCounts{Total: slowMissed["small"], SubscriberQueue: slowMissed["small"]}) || smallDrops.Total < 12-4 {
		t.Fatalf("drops on small: %+v, %v; want %d queue drops (at least 8)", smallDrops, ok, slowMissed["small"])
	}
	if srv.pub.Dropped() != 1+slowMissed["small"] {
		t.Fatalf("dropped %d, want %d", srv.pub.Dropped(), 1+slowMissed["small"])
	}
	if _, ok := srv.pub.DroppedOn("never.dropped"); ok {
		t.Fatal("a topic without drops has a drop record")
	}
}

// Beyond 1024 topics (max_sequence_scopes) drops count only in the
// aggregate, so a hostile topic space cannot grow the table.
func TestPubSubDropTableIsBounded(t *testing.T) {
	srv := pubsubServe(t, weida.Config{EndpointQueue: 1})
	pubsubSubscribe(t, srv, "#") // never reads
	// Stall the writer on a copy beyond the stream window, then fill the
	// one-deep queue behind it: every later copy is dropped.
	if n := pubsubPublishPromptly(t, srv.pub, "stall", make([]byte, 3<<20)); n != 1 {
		t.Fatalf("stall reached %d", n)
	}
	pubsubAwait(t, "a copy queued behind the stalled one", func() bool {
		n, _ := srv.pub.Publish("probe", nil)
		return n == 1
	})
	base := srv.pub.Dropped()
	tracked := 0
	if _, ok := srv.pub.DroppedOn("probe"); ok {
		tracked = 1
	}
	for i := range 1100 {
		if n, _ := srv.pub.Publish(fmt.Sprintf("t%d", i), nil); n != 0 {
			t.Fatalf("t%d reached the stalled subscriber", i)
		}
	}
	if got := srv.pub.Dropped() - base; got != 1100 {
		t.Fatalf("aggregate grew by %d, want 1100", got)
	}
	last := 1024 - tracked - 1 // the last topic that still found room in the table
	if _, ok := srv.pub.DroppedOn(fmt.Sprintf("t%d", last)); !ok {
		t.Fatalf("t%d is not tracked", last)
	}
	if _, ok := srv.pub.DroppedOn(fmt.Sprintf("t%d", last+1)); ok {
		t.Fatalf("t%d is tracked beyond 1024 topics", last+1)
	}
}

func TestPubSubSubscriberLossRemovesItsFilters(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	stays := pubsubSubscribe(t, srv, "#")
	leaves := pubsubSubscribe(t, srv, "#", "px.#")
	if srv.pub.SubscriberCount() != 2 {
		t.Fatalf("subscribers %d, want 2", srv.pub.SubscriberCount())
	}
	if err := leaves.Close(); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the lost subscriber to be removed", func() bool { return srv.pub.SubscriberCount() == 1 })
	if srv.pub.FilterCount() != 1 {
		t.Fatalf("filters %d, want 1", srv.pub.FilterCount())
	}
	if n, _ := srv.pub.Publish("px.eur", nil); n != 1 {
		t.Fatalf("reached %d, want 1", n)
	}
	pubsubRecvTopics(t, stays, 1)
	if _, _, err := leaves.Recv(context.Background(), 64); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("recv on a closed subscriber: %v, want Canceled", err)
	}
}

func TestPubSubRedialResendsFilters(t *testing.T) {
	id, _ := weida.GenerateIdentity()
	first := pubsubServeAt(t, weida.Config{}, "127.0.0.1:0", id, "/prices")
	sub := testRuntime(t).Subscriber(weida.TrustByAddress(), fastRedial())
	events := sub.Events()
	if err := sub.Connect(ctxFor(t), first.url()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"px.#", "fx.chf"} {
		if err := sub.Subscribe(ctxFor(t), f); err != nil {
			t.Fatal(err)
		}
	}
	nextEvent(t, events, weida.EventConnected)
	pubsubAwait(t, "the filters", func() bool { return first.pub.FilterCount() == 2 })
	if n, _ := first.pub.Publish("px.eur", nil); n != 1 {
		t.Fatalf("before the restart: reached %d", n)
	}
	pubsubRecvTopics(t, sub, 1)

	addr := first.b.LocalAddr()
	first.rt.Shutdown()
	nextEvent(t, events, weida.EventLost)
	if sub.PeerCount() != 0 {
		t.Fatalf("peer count %d while the publisher is down", sub.PeerCount())
	}
	second := pubsubServeAt(t, weida.Config{}, addr, id, "/prices")
	nextEvent(t, events, weida.EventConnected)
	pubsubAwait(t, "the re-sent filters", func() bool { return second.pub.FilterCount() == 2 })
	if n, _ := second.pub.Publish("fx.chf", []byte("0.94")); n != 1 {
		t.Fatalf("after the restart: reached %d", n)
	}
	if got := pubsubRecvTopics(t, sub, 1); got[0] != "fx.chf" {
		t.Fatalf("received %q", got)
	}
}

func TestPubSubGoroutinesReturnAfterShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	server, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := weida.NewRuntime(weida.Config{})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := weida.GenerateIdentity()
	b, err := server.Listener().BindQUIC("127.0.0.1:0", id)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := b.Publisher("/g")
	sub := client.Subscriber(weida.TrustByAddress())
	if err := sub.Connect(ctxFor(t), b.URL("/g")); err != nil {
		t.Fatal(err)
	}
	_ = sub.Subscribe(ctxFor(t), "#")
	pubsubAwait(t, "the filter", func() bool { return pub.FilterCount() == 1 })
	if n, _ := pub.Publish("a", []byte("whole")); n != 1 {
		t.Fatalf("reached %d", n)
	}
	pubsubRecvTopics(t, sub, 1)
	// Leave a streamed copy open: Shutdown must end its writer too.
	f, _ := pub.Open("b")
	half := []byte("half a stream, never finished")
	_, _ = f.WriteNow(half)
	in, err := sub.RecvStream(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(in, make([]byte, len(half))); err != nil {
		t.Fatal(err)
	}

	client.Shutdown()
	if _, _, err := sub.Recv(context.Background(), 64); !errors.Is(err, weida.ErrCanceled) {
		t.Fatalf("recv after the runtime shut down: %v, want Canceled", err)
	}
	server.Shutdown()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines: %d before, %d after shutdown:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A copy that has to wait carries the payload as it was published, though
// the caller reuses its buffer at once: the subscriber's stream credit (4)
// lets only the first copies go out, the rest queue in the publisher, and
// every Publish below is followed by overwriting the one buffer they all
// came from. (Copies may arrive in any order: pub/sub promises none.)
func TestQueuedCopiesKeepThePayloadAsPublished(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	rt := runtimeWith(t, weida.Config{Limits: weida.Limits{MaxConcurrentUniStreams: 4}, EndpointQueue: 1})
	sub := rt.Subscriber(weida.TrustByAddress())
	if err := sub.Connect(ctxFor(t), srv.url()); err != nil {
		t.Fatal(err)
	}
	if err := sub.Subscribe(ctxFor(t), ""); err != nil {
		t.Fatal(err)
	}
	pubsubAwait(t, "the publisher to apply the filter", func() bool { return srv.pub.FilterCount() == 1 })
	const messages = 40
	published := func(i int) string {
		return fmt.Sprintf("message %02d ", i) + strings.Repeat(string(rune('a'+i%26)), 51)
	}
	buf := make([]byte, len(published(0)))
	var want []string
	for i := range messages {
		copy(buf, published(i))
		want = append(want, published(i))
		if n, err := srv.pub.Publish("t", buf); err != nil || n != 1 {
			t.Fatalf("publish %d reached %d subscribers: %v", i, n, err)
		}
		for j := range buf {
			buf[j] = 'x' // the caller's buffer is its own again
		}
	}
	if srv.pub.Dropped() != 0 {
		t.Fatalf("%d copies dropped; the test needs every one delivered", srv.pub.Dropped())
	}
	// The credit lets at most 4 copies out before the subscriber reads, so
	// at least the rest wait (a writer may hold one more in hand).
	if n := weida.QueuedCopies(srv.pub); n < messages-4-1 {
		t.Fatalf("%d copies queued, want at least %d: the test must exercise the queued path", n, messages-5)
	}
	var got []string
	for i := range messages {
		body, _, err := sub.Recv(ctxFor(t), 1<<10)
		if err != nil {
			t.Fatalf("recv %d: %v", i, err)
		}
		got = append(got, string(body))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("received\n%q\nwant\n%q", got, want)
	}
}

// A copy the subscriber refuses after its bytes were queued (a Recv ceiling
// below its size; the refusal is let in between the bytes and the FIN) is
// a drop at the wire, and it does not go again: the subscriber's next copy
// is the next publication.
func TestCopyRefusedAsItWentIsDroppedNotSentAgain(t *testing.T) {
	srv := pubsubServe(t, weida.Config{})
	sub := pubsubSubscribe(t, srv, "")
	ctx := ctxFor(t)
	refused := make(chan error, 1)
	restore := faults.Set(&faults.SendNowQueued, func(payload []byte, stopped <-chan struct{}) {
		if string(payload) != "refused by the ceiling" {
			return // another test's send
		}
		go func() { _, _, err := sub.Recv(ctx, 4); refused <- err }()
		select {
		case <-stopped: // the subscriber's STOP_SENDING(REJECTED)
		case <-ctx.Done():
		}
	})
	n, err := srv.pub.Publish("t", []byte("refused by the ceiling"))
	restore()
	if err != nil || n != 0 {
		t.Fatalf("publish of the refused copy reached %d subscribers, %v; want 0", n, err)
	}
	if err := <-refused; weida.KindOf(err) != weida.KindLimitExceeded {
		t.Fatalf("the subscriber's Recv under its ceiling: %v; want LimitExceeded", err)
	}
	if got := srv.pub.Dropped(); got != 1 {
		t.Fatalf("%d copies dropped, want the refused one", got)
	}
	if n := pubsubPublishPromptly(t, srv.pub, "t", []byte("next")); n != 1 {
		t.Fatalf("the next publication reached %d subscribers, want 1", n)
	}
	body, _, err := sub.Recv(ctx, 1<<10)
	if err != nil || string(body) != "next" {
		t.Fatalf("the copy after the refused one: %q, %v; want %q", body, err, "next")
	}
}
