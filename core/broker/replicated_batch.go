package broker

import (
	"context"
	"fmt"
	"sync"

	"github.com/weida-go/weida/core/broker/cluster"
)

// maxProposing bounds the proposals one replicated queue has in Raft at
// once. While they commit, the ADMITs and DELIVERs that arrive queue up
// and go as one batch entry (group commit): a quiet queue proposes each
// entry at once, a busy one many per log entry, store write and round of
// replication.
const maxProposing = 4

// proposalBatcher group-commits a replicated queue's inline ADMITs and
// its DELIVERs (cluster.EntryBatch). Each caller still waits for its own
// entry's commit and hears its own answer; a batch that fails fails each
// of its entries with the batch's error, which says what it says of one
// entry (not leader, indeterminate).
type proposalBatcher struct {
	g *cluster.Group

	mu        sync.Mutex
	queued    []*proposal
	proposing int // goroutines taking batches from queued
}

// proposal is one entry waiting in a batch for its commit.
type proposal struct {
	e    cluster.Entry
	res  any
	err  error
	done chan struct{}
}

func newProposalBatcher(g *cluster.Group) *proposalBatcher { return &proposalBatcher{g: g} }

// propose commits e, alone or in a batch, and returns what applying it
// answered. It takes no context: an entry handed to Raft cannot be
// withdrawn, and its caller must learn whether it committed. An entry that
// is not valid fails here, before it could fail a batch of others.
func (b *proposalBatcher) propose(e cluster.Entry) (any, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	p := &proposal{e: e, done: make(chan struct{})}
	b.mu.Lock()
	b.queued = append(b.queued, p)
	start := b.proposing < maxProposing
	if start {
		b.proposing++
	}
	b.mu.Unlock()
	if start {
		go b.run()
	}
	<-p.done
	return p.res, p.err
}

// run proposes batches from the queue until it is empty: each as many
// entries as MaxBatch and MaxBatchBytes allow, in arrival order.
func (b *proposalBatcher) run() {
	for {
		b.mu.Lock()
		n, size := 0, 0
		for n < len(b.queued) && n < cluster.MaxBatch && size < cluster.MaxBatchBytes {
			size += b.queued[n].e.Size()
			n++
		}
		if n == 0 {
			b.proposing--
			b.mu.Unlock()
			return
		}
		batch := append([]*proposal(nil), b.queued[:n]...)
		b.queued = append(b.queued[:0], b.queued[n:]...)
		b.mu.Unlock()
		b.commit(batch)
	}
}

// commit proposes batch as one entry (a lone proposal as itself) and
// hands each proposal its answer.
func (b *proposalBatcher) commit(batch []*proposal) {
	if len(batch) == 1 {
		p := batch[0]
		p.res, p.err = b.g.Propose(context.Background(), p.e)
		close(p.done)
		return
	}
	e := cluster.Entry{Kind: cluster.EntryBatch, Batch: make([]cluster.Entry, len(batch))}
	for i, p := range batch {
		e.Batch[i] = p.e
	}
	res, err := b.g.Propose(context.Background(), e)
	results, ok := res.(cluster.BatchResult)
	if err == nil && (!ok || len(results) != len(batch)) {
		err = fmt.Errorf("replicated queue %s: a batch of %d entries answered %T", b.g.Path, len(batch), res)
	}
	for i, p := range batch {
		if p.err = err; err == nil {
			p.res = results[i]
		}
		close(p.done)
	}
}
