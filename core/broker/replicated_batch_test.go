package broker

import (
	"fmt"
	"sync"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/broker/cluster"
)

// TestConcurrentAdmissionsAreGroupCommitted: admissions and deliveries
// that arrive while earlier ones commit share log entries (EntryBatch),
// and each message is still certified Replicated on its own, gets its own
// seq and is delivered once at attempt 1. Inline bodies of 4 KiB fill a
// batch's MaxBatchBytes long before its MaxBatch entries.
func TestConcurrentAdmissionsAreGroupCommitted(t *testing.T) {
	for _, size := range []int{8, cluster.MaxInlineBody} {
		t.Run(fmt.Sprintf("%dB", size), func(t *testing.T) { groupCommits(t, size) })
	}
}

func groupCommits(t *testing.T, size int) {
	tc := startReplicated(t, 3, "written", "/jobs")
	leader := tc.leader(t, "/jobs")
	g := leader.node.Group("/jobs")
	before := g.Stats().CommitIndex

	const producers, each = 4, 64
	errs := make(chan error, producers*each)
	var wg sync.WaitGroup
	for p := range producers {
		pr := newProducer(t, leader.url+"/jobs")
		for i := range each {
			wg.Go(func() {
				body := fmt.Appendf(make([]byte, 0, size), "p%d.%d.", p, i)
				for len(body) < size {
					body = append(body, 'x')
				}
				_, meta, err := pr.req.RequestWith(ctxFor(t), weida.TransferMeta{}, body, 1024)
				if level, ok := meta.Achieved(); err == nil && (!ok || level != weida.Replicated) {
					err = fmt.Errorf("%s confirmed at level %d (%v), want Replicated", body, level, ok)
				}
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	admitted := g.Stats().CommitIndex - before
	if admitted >= producers*each {
		t.Fatalf("%d admissions took %d log entries: none was batched", producers*each, admitted)
	}
	if least := uint64(producers * each * size / cluster.MaxBatchBytes); admitted < least {
		t.Fatalf("%d admissions of %d bytes took %d log entries: a batch held more than MaxBatchBytes", producers*each, size, admitted)
	}
	t.Logf("%d concurrent admissions took %d log entries", producers*each, admitted)

	c := newConsumer(t, leader.url+"/jobs", "", producers*each)
	seen := map[string]bool{}
	for range producers * each {
		r := c.recv(t)
		if seen[string(r.body)] || r.attempt != 1 {
			t.Fatalf("%q delivered again or at attempt %d", r.body, r.attempt)
		}
		seen[string(r.body)] = true
		r.settle(t)
	}
	leader.awaitSettled(t, "/jobs")
	for _, m := range tc.members {
		awaitLive(t, m.node.Group("/jobs"), 0)
	}
}
