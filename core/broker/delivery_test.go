package broker

import (
	"testing"

	weida "github.com/weida-go/weida/core"
)

// BROKER.md §7: distribution and the delivery transfer.

func TestDeliveriesRoundRobinAmongConsumersWithCredit(t *testing.T) {
	tb, url := startJobs(t)
	a := newConsumer(t, url, "", 10)
	b := newConsumer(t, url, "", 10)
	tb.await(t, "/jobs", "two subscriptions with credit", func(q *queue) bool {
		return len(q.consumers.list) == 2 && q.consumers.list[0].limit == 10 && q.consumers.list[1].limit == 10
	})
	p := newProducer(t, url)
	for range 4 {
		p.mustSend(t, "", []byte("m"))
	}
	for _, c := range []*consumer{a, b} {
		for range 2 {
			c.recv(t).settle(t)
		}
	}
	tb.await(t, "/jobs", "every settlement", func(q *queue) bool { return len(q.unsettled) == 0 && len(q.ready) == 0 })
}

func TestADeliveryCarriesTheProducersHeaderUnmodified(t *testing.T) {
	_, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	sent := weida.TransferMeta{Topic: "orders.eu", ContentType: "application/json",
		Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", Tracestate: "vendor=opaque,x=1",
		ContentLen: 999, HasContentLen: true} // advisory, and wrong: never trusted
	p := newProducer(t, url)
	if _, _, err := p.req.RequestWith(ctxFor(t), sent, []byte(`{"id":1}`), 16); err != nil {
		t.Fatal(err)
	}
	got := c.recv(t)
	m := got.meta
	checks := []struct {
		name      string
		got, want string
	}{
		{"topic", first(m.Topic()), sent.Topic},
		{"content type", first(m.ContentType()), sent.ContentType},
		{"traceparent", first(m.Traceparent()), sent.Traceparent},
		{"tracestate", first(m.Tracestate()), sent.Tracestate},
		{"endpoint", first(m.Endpoint()), "/jobs"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s arrived as %q, want %q", c.name, c.got, c.want)
		}
	}
	if n, ok := m.ContentLen(); !ok || n != uint64(len(got.body)) {
		t.Errorf("content_len %d (present %v), want the body's length %d", n, ok, len(got.body))
	}
	if _, ok := m.Achieved(); ok {
		t.Error("a delivery carries key 8: only a reply half may")
	}
	got.settle(t)
}

// first drops a comma-ok getter's ok.
func first[T any](v T, _ bool) T { return v }
