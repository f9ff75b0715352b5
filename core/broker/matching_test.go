package broker

import (
	"fmt"
	"testing"

	weida "github.com/weida-go/weida/core"
)

// scanQueue is a queue's loop state alone: subs subscriptions with room,
// filtering f.0 … f.<subs-1>, and ready holding unmatched messages of a
// topic nobody subscribes to, then matched ones for f.5.
func scanQueue(subs, unmatched, matched int) *queue {
	q := &queue{maxUnsettled: 1 << 30}
	q.consumers.init()
	slots := newReportSlots(1 << 30)
	for i := range subs {
		s := &subscription{key: subKey{filter: fmt.Sprintf("f.%d", i)}, limit: 1 << 62}
		s.reports = slots.join(q, weida.PortConn{})
		q.consumers.list = append(q.consumers.list, s)
	}
	for i := range unmatched + matched {
		topic := "zzz"
		if i >= unmatched {
			topic = "f.5"
		}
		q.ready = append(q.ready, &message{id: uint64(i + 1), meta: weida.TransferMeta{Topic: topic}})
	}
	return q
}

// The scan past messages nobody matches costs one comparison each once it
// has seen them, and a topic's filters are matched once per subscription
// set, not once per message and subscription.
func TestTheScanRemembersWhatNobodyMatches(t *testing.T) {
	q := scanQueue(100, 20000, 3)
	i, s := q.pick()
	if i != 20000 || s == nil || s.key.filter != "f.5" {
		t.Fatalf("pick = %d, %v; want the first f.5 message to the f.5 subscription", i, s)
	}
	gen := q.matches.gen
	for _, m := range q.ready[:20000] {
		if m.unmatchedAt != gen {
			t.Fatalf("message %d not remembered as unmatched", m.id)
		}
	}
	if len(q.matches.subs) != 2 {
		t.Fatalf("%d topics matched, want 2 (zzz and f.5)", len(q.matches.subs))
	}
	// A new subscription changes the set: what nobody matched is judged again.
	zzz := &subscription{key: subKey{filter: "zzz"}, limit: 1 << 62, reports: q.consumers.list[0].reports}
	q.consumers.list = append(q.consumers.list, zzz)
	if i, s := q.pick(); i != 0 || s != zzz {
		t.Fatalf("after subscribing to zzz: pick = %d, %v; want the first message to it", i, s)
	}
}

// BenchmarkPickPastUnmatched: one pick with 20,000 ready messages no
// filter matches ahead of a matched one, 100 subscriptions.
func BenchmarkPickPastUnmatched(b *testing.B) {
	q := scanQueue(100, 20000, 1)
	b.ResetTimer()
	for range b.N {
		if i, _ := q.pick(); i != 20000 {
			b.Fatal(i)
		}
	}
}
