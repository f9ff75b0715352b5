package broker

import (
	"fmt"
	"sync"
	"testing"
)

// TestEveryMessageIsSettledDespiteAConsumerDying runs producers and
// consumers at once, one consumer vanishing with deliveries in hand:
// at least once means every message is processed, and nothing is left.
func TestEveryMessageIsSettledDespiteAConsumerDying(t *testing.T) {
	const producers, perProducer = 4, 50
	tb, url := startJobs(t)

	ctx := ctxFor(t)
	var mu sync.Mutex
	processed := map[string]int{}
	var steady sync.WaitGroup
	var consumers []*consumer
	for range 2 {
		c := newConsumer(t, url, "", producers*perProducer)
		consumers = append(consumers, c)
		steady.Add(1)
		go func() {
			defer steady.Done()
			for {
				body, _, r, err := c.RecvReporting(ctx, 1<<10)
				if err != nil {
					return // closed below
				}
				mu.Lock()
				processed[string(body)]++
				done := len(processed) == producers*perProducer
				mu.Unlock()
				_ = r.Report(5, uint64(len(body)))
				_ = r.Finish()
				if done {
					return
				}
			}
		}()
	}
	// This one takes a few and goes without a word: they come back.
	dying := newConsumer(t, url, "", 5)

	var sending sync.WaitGroup
	for i := range producers {
		p := newProducer(t, url)
		sending.Add(1)
		go func() {
			defer sending.Done()
			for j := range perProducer {
				if _, err := p.req.Request(ctx, []byte(fmt.Sprintf("p%d-m%d", i, j)), 16); err != nil {
					t.Errorf("send: %v", err)
					return
				}
			}
		}()
	}
	for range 3 {
		dying.recv(t)
	}
	_ = dying.Close()
	sending.Wait()
	tb.await(t, "/jobs", "every message settled", func(q *queue) bool { return len(q.ready) == 0 && len(q.unsettled) == 0 })
	for _, c := range consumers {
		_ = c.Close()
	}
	steady.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i := range producers {
		for j := range perProducer {
			if k := fmt.Sprintf("p%d-m%d", i, j); processed[k] == 0 {
				t.Fatalf("%s was never processed", k)
			}
		}
	}
	if s := tb.stats(t, "/jobs"); s.Bytes != 0 {
		t.Fatalf("stats %+v, want nothing charged", s)
	}
}
