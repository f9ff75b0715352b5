package broker

import (
	"fmt"
	"strings"
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

// TestABadEntryFailsAloneNotItsBatch: an entry that does not validate is
// refused before it is queued, so it cannot fail the batch it would have
// shared with the entries proposed beside it, which all commit.
func TestABadEntryFailsAloneNotItsBatch(t *testing.T) {
	tc := startReplicated(t, 3, "written", "/jobs")
	b := newProposalBatcher(tc.leader(t, "/jobs").node.Group("/jobs"))
	long := strings.Repeat("t", 257)
	bad := cluster.Entry{Kind: cluster.EntryAdmit, Digest: make([]byte, 32), Length: 1, Body: []byte{1}, Topic: &long}
	const good = 64
	start := make(chan struct{})
	errs := make(chan error, good)
	var wg sync.WaitGroup
	for i := range good {
		wg.Go(func() {
			<-start
			// A DELIVER of a seq nobody holds commits and changes nothing.
			_, err := b.propose(cluster.Entry{Kind: cluster.EntryDeliver, Seq: uint64(1000 + i), Attempt: 1})
			errs <- err
		})
	}
	var badErr error
	wg.Go(func() {
		<-start
		_, badErr = b.propose(bad)
	})
	close(start)
	wg.Wait()
	close(errs)
	if badErr == nil || !strings.Contains(badErr.Error(), "topic") {
		t.Fatalf("a 257-byte topic: %v, want it refused naming the topic", badErr)
	}
	for err := range errs {
		if err != nil {
			t.Fatalf("a valid entry proposed beside a bad one failed: %v", err)
		}
	}
}
