package broker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// TestSoakOneConnectionTwentySubscriptions is issue 18's soak: one
// consumer connection with 20 subscriptions takes deliveries without
// reporting until the broker stops at the connection's bound, then
// reports them all in random order, round after round. Every message must
// be delivered exactly once and settle exactly once, and the queue must
// end empty. The heavy run (WEIDA_HEAVY=1, build/soak.sh) sends 100,000
// messages; the test suite a cut-down 4,000 (two rounds past the bound).
func TestSoakOneConnectionTwentySubscriptions(t *testing.T) {
	messages := 4000
	if os.Getenv("WEIDA_HEAVY") != "" {
		messages = 100_000
	}
	const filters = 20
	start := time.Now()
	tb := startBroker(t, Config{Queues: []QueueConfig{{Path: "/jobs"}}, QueueBytes: 64 << 20})
	url := tb.binding.URL("/jobs")
	h := newHolder(t, url, filters, uint64(messages))
	tb.awaitConsumers(t, "/jobs", filters)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		sendAllOf(t, url, messages, func(i int) string { return fmt.Sprintf("t.%d", i%filters) })
	}()

	settled, rounds := 0, 0
	held := make([]received, 0, MaxConnectionUnsettled)
	for settled < messages {
		for len(held) < min(MaxConnectionUnsettled, messages-settled) {
			held = append(held, h.take(t))
		}
		rand.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
		for _, r := range held {
			r.settle(t)
		}
		settled += len(held)
		held = held[:0]
		rounds++
	}
	<-sent
	tb.await(t, "/jobs", "every message settled", func(q *queue) bool { return len(q.ready) == 0 && len(q.unsettled) == 0 })
	s := tb.stats(t, "/jobs")
	if s.Delivered != uint64(messages) || s.MaxAttempts != 0 || s.Ready != 0 || s.Unsettled != 0 || s.Bytes != 0 {
		t.Fatalf("stats %+v after %d messages, want each delivered once and settled, nothing left", s, messages)
	}
	t.Logf("figure: broker soak: %d messages, 1 connection, %d subscriptions, %d withheld rounds of up to %d: "+
		"0 repeats, 0 lost settlements, Ready 0, Unsettled 0, in %v",
		messages, filters, rounds, MaxConnectionUnsettled, time.Since(start).Round(100*time.Millisecond))
}
