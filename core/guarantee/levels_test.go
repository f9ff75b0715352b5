package guarantee

import (
	"fmt"
	"testing"
)

func TestLevelNames(t *testing.T) {
	tests := []struct {
		level fmt.Stringer
		want  string
	}{
		{BestEffort, "BestEffort"},
		{AtMostOnce, "AtMostOnce"},
		{AtLeastOnce, "AtLeastOnce"},
		{Delivery(3), "Delivery(3)"},

		{AckNone, "None"},
		{TransportReceipt, "TransportReceipt"},
		{Accepted, "Accepted"},
		{Stored, "Stored"},
		{Replicated, "Replicated"},
		{Processed, "Processed"},
		{Acknowledgement(6), "Acknowledgement(6)"},

		{DurabilityUnset, "Unset"},
		{Written, "Written"},
		{Flushed, "Flushed"},
		{Durability(3), "Durability(3)"},

		{OrderingNone, "None"},
		{PerProducerDetect, "PerProducer(detect)"},
		{PerProducerReassemble, "PerProducer(reassemble)"},
		{PerKey, "PerKey"},
		{Total, "Total"},
		{Ordering(5), "Ordering(5)"},

		{DedupNone, "None"},
		{DedupBounded, "Bounded"},
		{DedupDurable, "Durable"},
		{Deduplication(3), "Deduplication(3)"},

		{Block, "Block"},
		{Reject, "Reject"},
		{Drop, "Drop"},
		{Spill, "Spill"},
		{Coalesce, "Coalesce"},
		{Backpressure(5), "Backpressure(5)"},

		{NamingFingerprint, "Fingerprint"},
		{NamingStable, "Stable"},
		{ProducerNaming(2), "ProducerNaming(2)"},
	}
	for _, tt := range tests {
		if got := tt.level.String(); got != tt.want {
			t.Errorf("%T(%d).String() = %q, want %q", tt.level, tt.level, got, tt.want)
		}
	}
}

// ranked is an ordered dimension's level.
type ranked interface{ Rank() int }

// TestRanksFollowSpecOrder lists each ordered dimension weakest first, as
// SEMANTICS.md §3.2 does, and requires strictly rising ranks from 0, with an
// unknown value below everything.
func TestRanksFollowSpecOrder(t *testing.T) {
	ladders := map[string][]ranked{
		"delivery":        {BestEffort, AtMostOnce, AtLeastOnce},
		"acknowledgement": {AckNone, TransportReceipt, Accepted, Stored, Replicated, Processed},
		"durability":      {DurabilityUnset, Written, Flushed},
		"ordering":        {OrderingNone, PerProducerDetect, PerProducerReassemble, PerKey, Total},
		"deduplication":   {DedupNone, DedupBounded, DedupDurable},
	}
	for name, ladder := range ladders {
		for i, l := range ladder {
			if got := l.Rank(); got != i {
				t.Errorf("%s: %v.Rank() = %d, want %d", name, l, got, i)
			}
		}
	}
	unknowns := []ranked{Delivery(3), Acknowledgement(6), Durability(3), Ordering(5), Deduplication(3)}
	for _, u := range unknowns {
		if got := u.Rank(); got != -1 {
			t.Errorf("%T(%v).Rank() = %d, want -1", u, u, got)
		}
	}
}

// TestZeroValuesAreCore pins the zero-value rule every config struct relies on.
func TestZeroValuesAreCore(t *testing.T) {
	var (
		d  Delivery
		a  Acknowledgement
		du Durability
		o  Ordering
		dd Deduplication
		b  Backpressure
		p  ProducerNaming
	)
	got := []fmt.Stringer{d, a, du, o, dd, b, p}
	want := []fmt.Stringer{BestEffort, TransportReceipt, DurabilityUnset, OrderingNone, DedupNone, Block, NamingFingerprint}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("zero %T is %v, want %v", got[i], got[i], want[i])
		}
	}
}
