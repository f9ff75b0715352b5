package broker

import (
	"context"
	"sync"
	"time"

	"github.com/weida-go/weida/core/broker/cluster"
)

// settleBatcher commits a replicated queue's settlements in SETTLE entries
// of up to cluster.MaxSettleBatch seqs: the loop hands it seqs without
// waiting, and one goroutine proposes whatever gathered while the previous
// entry was committing, so a burst of reports costs a few commits, not one
// each. A batch that fails while this node still leads is proposed again;
// one this node can no longer commit is dropped: the next leader redelivers
// those messages (at least once, never lost).
type settleBatcher struct {
	g       *cluster.Group
	onError func(error)
	mu      sync.Mutex
	pending []uint64
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// settleRetry is the pause before a failed SETTLE is proposed again.
const settleRetry = 100 * time.Millisecond

func newSettleBatcher(g *cluster.Group, onError func(error)) *settleBatcher {
	b := &settleBatcher{g: g, onError: onError, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// add queues seq for the next SETTLE.
func (b *settleBatcher) add(seq uint64) {
	b.mu.Lock()
	b.pending = append(b.pending, seq)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// drop forgets every seq not yet proposed: this node stopped leading, and
// the next leader settles nothing it did not hear settled.
func (b *settleBatcher) drop() {
	b.mu.Lock()
	b.pending = nil
	b.mu.Unlock()
}

func (b *settleBatcher) take() []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := min(len(b.pending), cluster.MaxSettleBatch)
	batch := append([]uint64(nil), b.pending[:n]...)
	b.pending = append(b.pending[:0], b.pending[n:]...)
	return batch
}

func (b *settleBatcher) run() {
	defer close(b.done)
	for {
		select {
		case <-b.stop:
			return
		case <-b.wake:
		}
		for batch := b.take(); len(batch) > 0; batch = b.take() {
			if !b.commit(batch) {
				break
			}
		}
	}
}

// commit proposes one SETTLE until it commits, this node stops leading,
// or the batcher closes; it reports whether to go on.
func (b *settleBatcher) commit(seqs []uint64) bool {
	for {
		_, err := b.g.Propose(context.Background(), cluster.Entry{Kind: cluster.EntrySettle, Seqs: seqs})
		if err == nil {
			return true
		}
		if _, ok := notLeader(err); (ok || indeterminate(err)) && !b.g.IsLeader() {
			return true // the next leader redelivers what this one could not settle
		}
		if !indeterminate(err) {
			b.onError(err)
		}
		select {
		case <-b.stop:
			return false
		case <-time.After(settleRetry):
		}
	}
}

func (b *settleBatcher) close() {
	close(b.stop)
	<-b.done
}
