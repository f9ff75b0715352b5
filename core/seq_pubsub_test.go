package weida_test

import (
	"bytes"
	"testing"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
)

// TestSeqGapPubSubDroppedCopyIsMissed: a publisher drops a copy for a
// stalled subscriber (drop-new at its byte budget); the subscriber, running
// detect or reassemble, sees the hole as Missed. Under reassemble the copies
// after the hole are held until the hold is full, then the forced release
// carries the gap and the rest follows in order (SEMANTICS.md §2.3). A
// packet lost on a loaded machine may delay a copy past a full hold too;
// that copy then counts as missed and arrives late, which the accounting
// allows.
func TestSeqGapPubSubDroppedCopyIsMissed(t *testing.T) {
	for _, set := range []guarantee.Set{seqDetect, seqReassemble} {
		t.Run(set.String(), func(t *testing.T) {
			// Room for every small copy at the publisher: the one drop is the big one.
			srv := pubsubServe(t, weida.Config{Guarantees: set, EndpointQueue: 1024})
			sub := guaranteeRuntime(t, weida.Config{Guarantees: set}).Subscriber(weida.TrustByAddress())
			if err := sub.Connect(ctxFor(t), srv.url()); err != nil {
				t.Fatal(err)
			}
			if err := sub.Subscribe(ctxFor(t), "#"); err != nil {
				t.Fatal(err)
			}
			pubsubAwait(t, "the filter", func() bool { return srv.pub.FilterCount() == 1 })

			// One topic, so one numbered scope. The subscriber reads nothing
			// yet: the first 3 MiB copy stalls at
			// its 1 MiB stream window, the second waits in the budget, the third
			// does not fit 8 MiB and is dropped: number 2 is a hole.
			big := bytes.Repeat([]byte("B"), 3<<20)
			for range 3 {
				pubsubPublishPromptly(t, srv.pub, "t", big)
			}
			if srv.pub.Dropped() != 1 {
				t.Fatalf("dropped %d, want the third big copy", srv.pub.Dropped())
			}
			// More than the reorder hold, so reassembly must let the gap go.
			const small = guarantee.MaxReorderHold + 44
			for range small {
				pubsubPublishPromptly(t, srv.pub, "t", []byte("s"))
			}
			received := map[uint64]bool{}
			var missed uint64
			accounts := seqAccounts{}
			for range 2 + small {
				_, meta, err := sub.Recv(ctxFor(t), 4<<20)
				if err != nil {
					t.Fatal(err)
				}
				n, ok := meta.Sequence()
				if !ok || received[n] {
					t.Fatalf("copy numbered %d (%v), or twice", n, ok)
				}
				received[n] = true
				accounts.add(meta)
				m, _ := meta.Missed()
				missed += m
			}
			if received[2] || len(received) != 2+small || !received[2+small] {
				t.Fatalf("received %d copies; want all of 0..%d but the dropped 2", len(received), 2+small)
			}
			if srv.pub.Dropped() != 1 || missed < 1 {
				t.Fatalf("publisher dropped %d, subscriber saw %d missed", srv.pub.Dropped(), missed)
			}
			if set.Ordering == guarantee.PerProducerReassemble {
				accounts.check(t)
			}
		})
	}
}
