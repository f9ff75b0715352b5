package weida_test

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/guarantee"
	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/transport"
	"github.com/weida-go/weida/core/wire"
)

// The tests here write DATA headers by hand from a transport-level peer
// that agreed on the server's set, so they can send what no weida sender
// does: numbers going backwards, repeats, huge gaps, floods.

// seqWireSender dials srv from the transport, agreeing on set.
func seqWireSender(t *testing.T, srv *guaranteeServer, set guarantee.Set) *transport.Conn {
	t.Helper()
	addr, err := identity.ParseAddress(srv.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.NewConfig()
	cfg.Offered, cfg.Required = set.Wire(), set.Wire()
	c, err := transport.Dial(ctxFor(t), addr, identity.TrustByAddress(), nil, cfg, pubsubSilentHandler{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(wire.CodeNoError, "") })
	return c
}

// seqWireSend sends one transfer numbered n in topic (none when ""), and
// returns its transport receipt.
func seqWireSend(ctx context.Context, c *transport.Conn, topic string, n uint64) (*transport.Receipt, error) {
	h := wire.Data{Endpoint: wire.Some("/g"), Sequence: wire.Some(n)}
	if topic != "" {
		h.Topic = wire.Some(topic)
	}
	out, err := c.OpenUni(ctx, &h)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write([]byte(strconv.FormatUint(n, 10))); err != nil {
		return nil, err
	}
	return out.Finish()
}

type seqArrival struct {
	topic string
	n     uint64
}

// TestSeqGapDetectDeliversAsArrived sends one transfer at a time, each
// accepted before the next, so the arrival order is the send order, and
// checks the detect rule of PROTOCOL.md §8.3.2 on each.
func TestSeqGapDetectDeliversAsArrived(t *testing.T) {
	srv := guaranteeServe(t, weida.Config{Guarantees: seqDetect})
	c := seqWireSender(t, srv, seqDetect)
	steps := []struct {
		n      uint64
		missed uint64
	}{
		{5, 0},                // the first number sets the position
		{6, 0},                // in order
		{9, 2},                // 7 and 8 missed
		{7, 0},                // late: below the position, no gap
		{10, 0},               // the position did not move back
		{1 << 62, 1<<62 - 11}, // a huge gap
		{math.MaxUint64, math.MaxUint64 - 1<<62 - 1}, // the largest number
		{3, 0}, // backwards
	}
	for i, st := range steps {
		if _, err := seqWireSend(ctxFor(t), c, "", st.n); err != nil {
			t.Fatal(err)
		}
		meta, _ := seqAccept(t, srv.a)
		n, _ := meta.Sequence()
		missed, gap := meta.Missed()
		if n != st.n || missed != st.missed || gap != (st.missed > 0) {
			t.Fatalf("step %d: got %d missing %d (%v); want %d missing %d", i, n, missed, gap, st.n, st.missed)
		}
	}
}

// TestSeqHostilePeerStaysWithinTheCaps: whatever a peer numbers, the
// receiver's tables stay within max_reorder_hold, max_sequence_scopes and
// max_dedup_entries, and everything not held or suppressed is delivered.
func TestSeqHostilePeerStaysWithinTheCaps(t *testing.T) {
	reassembleDedup := guarantee.Set{Ordering: guarantee.PerProducerReassemble,
		Deduplication: guarantee.DedupBounded, DedupWindow: time.Hour}
	dedupOnly := guarantee.Set{Deduplication: guarantee.DedupBounded, DedupWindow: time.Hour}
	seq := func(from, to, step int) []seqArrival { // from..to inclusive, step may be negative
		var out []seqArrival
		for n := from; (step > 0 && n <= to) || (step < 0 && n >= to); n += step {
			out = append(out, seqArrival{n: uint64(n)})
		}
		return out
	}
	repeat := func(n uint64, times int) []seqArrival {
		out := make([]seqArrival, times)
		for i := range out {
			out[i] = seqArrival{n: n}
		}
		return out
	}
	topics := func(count int) []seqArrival {
		out := make([]seqArrival, count)
		for i := range out {
			out[i] = seqArrival{topic: "t" + strconv.Itoa(i), n: 1}
		}
		return out
	}
	tests := []struct {
		name                        string
		set                         guarantee.Set
		arrivals                    []seqArrival
		delivered, suppressed, held int
		peak, scopes, dedup         int
	}{
		{"numbers going backwards", seqReassemble, seq(600, 0, -1), 601, 0, 0, 256, 1, 0},
		{"huge gaps", seqReassemble,
			[]seqArrival{{n: 0}, {n: 1 << 62}, {n: math.MaxUint64}, {n: 5}}, 1, 0, 3, 3, 1, 0},
		{"a flood of one duplicate", reassembleDedup, repeat(0, 2000), 1, 1999, 0, 0, 1, 1},
		{"more identities than the dedup cap", dedupOnly, seq(0, guarantee.MaxDedupEntries+499, 1),
			guarantee.MaxDedupEntries + 500, 0, 0, 0, 0, guarantee.MaxDedupEntries},
		{"more held than the cap", seqReassemble, seq(2, 1200, 2), 600 - 256, 0, 256, 256, 1, 0},
		{"a flood of scopes", seqReassemble, topics(2000), 2000 - 256, 0, 256, 256, guarantee.MaxSequenceScopes, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := guaranteeServe(t, weida.Config{Guarantees: tc.set})
			c := seqWireSender(t, srv, tc.set)
			sent := make(chan error, 1)
			ctx := ctxFor(t)
			go func() {
				for _, a := range tc.arrivals {
					if _, err := seqWireSend(ctx, c, a.topic, a.n); err != nil {
						sent <- err
						return
					}
				}
				sent <- nil
			}()
			seqWantDeliveries(t, srv, tc.set, tc.delivered)
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			pubsubAwait(t, "the held and suppressed transfers", func() bool {
				s := weida.SeqStates(srv.rt)[0]
				return s.Held == tc.held && srv.rt.SuppressedDuplicates() == uint64(tc.suppressed)
			})
			got := weida.SeqStates(srv.rt)[0]
			want := weida.SeqConnState{HasState: true, Scopes: tc.scopes, Held: tc.held, PeakHeld: tc.peak, DedupEntries: tc.dedup}
			if got != want {
				t.Fatalf("state %+v, want %+v", got, want)
			}
		})
	}
}

// seqWantDeliveries accepts n transfers and, under reassembly, checks
// their accounting (seqAccounts).
func seqWantDeliveries(t *testing.T, srv *guaranteeServer, set guarantee.Set, n int) {
	t.Helper()
	accounts := seqAccounts{}
	for range n {
		meta, _ := seqAccept(t, srv.a)
		if set.Ordering == guarantee.PerProducerReassemble {
			accounts.add(meta)
		}
	}
	accounts.check(t)
}

// seqAccounts keeps, per topic, what a reassembling receiver delivered:
// every release past the position continues it, either in order or with
// the gap it skipped, while a release at or below it passed straight
// through (late, repeated, or in an untracked scope).
type seqAccounts map[string]*seqAccount

type seqAccount struct{ last, inOrder, missed uint64 }

func (a seqAccounts) add(meta weida.IncomingMeta) {
	topic, _ := meta.Topic()
	n, _ := meta.Sequence()
	missed, _ := meta.Missed()
	acc := a[topic]
	switch {
	case acc == nil:
		a[topic] = &seqAccount{last: n, inOrder: 1, missed: missed}
	case n > acc.last:
		acc.last, acc.inOrder, acc.missed = n, acc.inOrder+1, acc.missed+missed
	}
}

// check: no number is both delivered and missed, and with one scope (all
// of it tracked) every number up to the last release was one or the other.
func (a seqAccounts) check(t *testing.T) {
	t.Helper()
	for topic, acc := range a {
		if acc.inOrder+acc.missed > acc.last+1 || len(a) == 1 && acc.inOrder+acc.missed != acc.last+1 {
			t.Fatalf("scope %q: %d delivered in order and %d missed up to %d", topic, acc.inOrder, acc.missed, acc.last)
		}
	}
}
