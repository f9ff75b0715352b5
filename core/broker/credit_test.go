package broker

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BROKER.md §17, credit.

// quiet is the bound of a negative assertion: nothing is expected, and the
// state that makes it so was awaited first.
const quiet = 150 * time.Millisecond

func TestNothingIsDeliveredBeforeAGrant(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 0)
	tb.awaitConsumers(t, "/jobs", 1)
	newProducer(t, url).mustSend(t, "", []byte("one"))
	c.nothingWithin(t, quiet)
	if s := tb.stats(t, "/jobs"); s.Ready != 1 || s.Unsettled != 0 {
		t.Fatalf("stats %+v with zero credit, want the message still ready", s)
	}
	if err := c.Grant(ctxFor(t), 1); err != nil {
		t.Fatal(err)
	}
	if got := c.recv(t); string(got.body) != "one" {
		t.Fatalf("received %q after the grant", got.body)
	}
}

func TestRepeatedOrLowerGrantChangesNothing(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 1)
	p := newProducer(t, url)
	p.mustSend(t, "", []byte("first"))
	c.recv(t).settle(t)
	tb.awaitSettled(t, "/jobs")

	// Restate the standing limit and a lower one on the broker's side, as
	// duplicated and reordered CREDIT frames would arrive.
	q := tb.byPath["/jobs"]
	if err := q.call(ctxFor(t), func() {
		s := q.consumers.list[0]
		q.credit(s.key.conn, s.key.filter, 1)
		q.credit(s.key.conn, s.key.filter, 0)
	}); err != nil {
		t.Fatal(err)
	}
	p.mustSend(t, "", []byte("second"))
	c.nothingWithin(t, quiet)
	if s := tb.stats(t, "/jobs"); s.Ready != 1 {
		t.Fatalf("stats %+v: a repeated or lower grant minted credit", s)
	}
}

func TestAConsumerAtItsLimitYieldsAndEachMessageGoesToOne(t *testing.T) {
	tb, url := startJobs(t)
	a := newConsumer(t, url, "", 1)
	b := newConsumer(t, url, "", 5)
	tb.awaitConsumers(t, "/jobs", 2)
	p := newProducer(t, url)
	const n = 5
	for i := range n {
		p.mustSend(t, "", []byte(fmt.Sprint("m", i)))
	}
	seen := map[string]int{}
	got := a.recv(t) // a has credit for exactly one
	seen[string(got.body)]++
	got.settle(t)
	for range n - 1 {
		got := b.recv(t)
		seen[string(got.body)]++
		got.settle(t)
	}
	for i := range n {
		if k := fmt.Sprint("m", i); seen[k] != 1 {
			t.Fatalf("message %s delivered %d times; deliveries %v", k, seen[k], seen)
		}
	}
	a.nothingWithin(t, quiet)
}

func TestUnsubscribeAndConnectionCloseRemoveConsumers(t *testing.T) {
	tb, url := startJobs(t)
	a := newConsumer(t, url, "", 10)
	b := newConsumer(t, url, "x.#", 10)
	tb.awaitConsumers(t, "/jobs", 2)
	if err := b.Unsubscribe(ctxFor(t), "x.#"); err != nil {
		t.Fatal(err)
	}
	tb.awaitConsumers(t, "/jobs", 1)
	_ = a.Close()
	tb.awaitConsumers(t, "/jobs", 0)
	newProducer(t, url).mustSend(t, "x.y", []byte("kept"))
	if s := tb.stats(t, "/jobs"); s.Ready != 1 || s.Consumers != 0 {
		t.Fatalf("stats %+v, want the message held for nobody", s)
	}
}

func TestFiltersSelect(t *testing.T) {
	tb, url := startJobs(t)
	eur := newConsumer(t, url, "px.eur", 10)
	all := newConsumer(t, url, "orders.#", 10)
	tb.awaitConsumers(t, "/jobs", 2)
	p := newProducer(t, url)
	p.mustSend(t, "orders.new", []byte("o1"))
	p.mustSend(t, "px.eur", []byte("p1"))
	p.mustSend(t, "px.usd", []byte("nobody")) // matches no filter: scanned past, never blocks
	p.mustSend(t, "orders", []byte("o2"))
	for _, c := range []struct {
		who  *consumer
		want []string
	}{{eur, []string{"p1"}}, {all, []string{"o1", "o2"}}} {
		var bodies []string // deliveries ride separate streams: any order
		for range c.want {
			got := c.who.recv(t)
			if topic, _ := got.meta.Topic(); topic == "" {
				t.Fatalf("the delivery of %q lost its topic", got.body)
			}
			bodies = append(bodies, string(got.body))
			got.settle(t)
		}
		if slices.Sort(bodies); !slices.Equal(bodies, c.want) {
			t.Fatalf("received %q, want %q", bodies, c.want)
		}
	}
	tb.awaitSettled(t, "/jobs")
	if s := tb.stats(t, "/jobs"); s.Ready != 1 {
		t.Fatalf("stats %+v, want only px.usd left", s)
	}
}

func TestAGrantBeforeItsSubscribeIsHeld(t *testing.T) {
	tb, url := startJobs(t)
	c := newConsumer(t, url, "", 0)
	tb.awaitConsumers(t, "/jobs", 1)
	q := tb.byPath["/jobs"]
	var conn subKey
	if err := q.call(ctxFor(t), func() {
		conn = q.consumers.list[0].key
		// CREDIT for a filter not subscribed yet, then more than the table holds.
		q.credit(conn.conn, "later", 3)
		for i := range MaxPendingGrants {
			q.credit(conn.conn, fmt.Sprint("f", i), 1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	var held int
	var laterKept bool
	_ = q.call(ctxFor(t), func() {
		held = len(q.consumers.held)
		_, laterKept = q.consumers.held[subKey{conn.conn, "later"}]
	})
	if held != MaxPendingGrants || laterKept {
		t.Fatalf("held %d grants (oldest kept: %v), want %d with the oldest evicted", held, laterKept, MaxPendingGrants)
	}
	_ = q.call(ctxFor(t), func() { q.credit(conn.conn, "late", 2) }) // evicts f0
	if err := c.Subscribe(ctxFor(t), "late"); err != nil {
		t.Fatal(err)
	}
	tb.await(t, "/jobs", "the held grant applied", func(q *queue) bool {
		s := q.consumers.byKey[subKey{conn.conn, "late"}]
		return s != nil && s.limit == 2
	})
}
