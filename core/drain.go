package weida

import (
	"context"
	"time"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/transport"
)

// Drained is what a drain observed: transfers whose receipt arrived during
// the drain, and those still without one at the deadline (including bodies
// still waiting in outboxes and copies still queued for subscribers). A
// copy a publisher wrote, and a message Send (Pusher, Paired) wrote, hand
// out no receipt and are not counted once written: the drain waits for the
// peer to consume them, as for every stream. Local counts, not a claim
// about the peer.
type Drained struct {
	Delivered   uint64
	Outstanding uint64
}

// Drain ends the runtime gracefully (SEMANTICS.md §8.6): bindings stop
// admitting connections and refuse new inbound streams with SHUTDOWN; then
// it waits until every finished transfer has its transport receipt, and
// until the peers' applications have consumed the streams this side opened
// (observed from the stream credit they grant back), or the deadline; then
// it closes everything with SHUTDOWN, as Shutdown does. An
// expired drain with outstanding transfers is not an error. The deadline is
// mandatory: it must be in the future. A Reporter not yet finished is the
// application's, as an unfinished transfer is: the drain does not write
// the records it has not sent yet, so Finish reports first (a broker
// redelivers a message whose Processed never reached it).
func (rt *Runtime) Drain(deadline time.Time) (Drained, error) {
	if deadline.IsZero() {
		return Drained{}, errs.New(errs.KindRuntime, "drain: a deadline is required")
	}
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return Drained{}, errRuntimeClosed()
	}
	var conns []*transport.Conn
	for b := range rt.bindings {
		b.tl.StopAdmission()
		conns = append(conns, b.tl.Conns()...)
	}
	for _, pc := range rt.pool {
		pc.conn.StopAdmission()
		conns = append(conns, pc.conn)
	}
	writers := make([]*copyWriter, 0, len(rt.writers))
	for w := range rt.writers {
		writers = append(writers, w)
	}
	rt.mu.Unlock()

	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// Copies a publisher or bus member queued are written first, so their
	// receipts exist to be waited for; what is still queued at the deadline
	// is outstanding.
	unwritten := 0
	for _, w := range writers {
		unwritten += w.awaitIdle(ctx)
	}
	var receipts []*transport.Receipt
	for _, c := range conns {
		receipts = append(receipts, c.OutstandingReceipts()...)
	}
	delivered, outstanding := awaitReceipts(ctx, receipts)
	// A receipt says the peer's transport holds the bytes; closing now would
	// make it discard what its application has not read yet. Give the
	// application the rest of the deadline to consume them.
	for _, c := range conns {
		_ = c.AwaitPeerConsumed(ctx)
	}
	if len(conns) > 0 {
		linger(ctx)
	}
	outboxed := rt.outboxed()
	rt.Shutdown()
	return Drained{Delivered: uint64(delivered), Outstanding: uint64(outstanding + outboxed + unwritten)}, nil
}

// drainLinger is how long a drain keeps its connections open after what it
// can observe is done. A peer reading an answer on a stream it opened (a
// reply) sends no signal once it has read it, and quic-go discards what a
// closed connection's streams still hold: without a pause, a reply whose
// receipt arrived could still be lost to the reader a moment from taking it.
const drainLinger = 20 * time.Millisecond

// linger waits drainLinger, or until ctx (the drain's deadline) ends.
func linger(ctx context.Context) {
	t := time.NewTimer(drainLinger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
