package guarantee

import (
	"math"
	"testing"
	"time"

	"github.com/weida-go/weida/core/wire"
)

// coreWire is the wire form of core, written out so the test does not lean on
// the helper it checks.
var coreWire = wire.GuaranteeSet{Acknowledgement: 1}

// with returns core's wire form changed by edit.
func with(edit func(*wire.GuaranteeSet)) wire.GuaranteeSet {
	w := coreWire
	edit(&w)
	return w
}

func TestCoreIsTheWireCore(t *testing.T) {
	if got := Core().Wire(); got != wire.CoreGuarantees() || got != coreWire {
		t.Fatalf("Core().Wire() = %+v, want %+v", got, coreWire)
	}
	s, err := FromWire(wire.CoreGuarantees())
	if err != nil || !s.IsCore() {
		t.Fatalf("FromWire(core) = %v, %v; want core, nil", s, err)
	}
}

// TestWireRoundTripEveryLevel pins the wire number of every level of every
// dimension (PROTOCOL.md §8.2) and converts both ways.
func TestWireRoundTripEveryLevel(t *testing.T) {
	tests := []struct {
		set  Set
		wire wire.GuaranteeSet
	}{
		{Set{Delivery: BestEffort}, coreWire},
		{Set{Delivery: AtMostOnce}, with(func(w *wire.GuaranteeSet) { w.Delivery = 1 })},
		{Set{Delivery: AtLeastOnce}, with(func(w *wire.GuaranteeSet) { w.Delivery = 2 })},

		{Set{Acknowledgement: AckNone}, with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 0 })},
		{Set{Acknowledgement: TransportReceipt}, coreWire},
		{Set{Acknowledgement: Accepted}, with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 2 })},
		{Set{Acknowledgement: Stored}, with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 3 })},
		{Set{Acknowledgement: Replicated}, with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 4 })},
		{Set{Acknowledgement: Processed}, with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 5 })},

		{Set{Acknowledgement: Stored, Durability: Written}, with(func(w *wire.GuaranteeSet) {
			w.Acknowledgement, w.Durability = 3, wire.Some[uint64](0)
		})},
		{Set{Acknowledgement: Stored, Durability: Flushed}, with(func(w *wire.GuaranteeSet) {
			w.Acknowledgement, w.Durability = 3, wire.Some[uint64](1)
		})},
		{Set{Acknowledgement: Replicated, Replicas: 2}, with(func(w *wire.GuaranteeSet) {
			w.Acknowledgement, w.Replicas = 4, wire.Some[uint64](2)
		})},
		{Set{Acknowledgement: Replicated, Replicas: 5, Durability: Flushed}, with(func(w *wire.GuaranteeSet) {
			w.Acknowledgement, w.Replicas, w.Durability = 4, wire.Some[uint64](5), wire.Some[uint64](1)
		})},

		{Set{Ordering: OrderingNone}, coreWire},
		{Set{Ordering: PerProducerDetect}, with(func(w *wire.GuaranteeSet) { w.Ordering = 1 })},
		{Set{Ordering: PerProducerReassemble}, with(func(w *wire.GuaranteeSet) { w.Ordering = 2 })},
		{Set{Ordering: PerKey}, with(func(w *wire.GuaranteeSet) { w.Ordering = 3 })},
		{Set{Ordering: Total}, with(func(w *wire.GuaranteeSet) { w.Ordering = 4 })},

		{Set{Deduplication: DedupNone}, coreWire},
		{Set{Deduplication: DedupBounded, DedupWindow: 250 * time.Millisecond}, with(func(w *wire.GuaranteeSet) {
			w.Deduplication, w.DedupWindowMs = 1, wire.Some[uint64](250)
		})},
		{Set{Deduplication: DedupBounded, DedupWindow: time.Duration(maxWindowMs) * time.Millisecond}, with(func(w *wire.GuaranteeSet) {
			w.Deduplication, w.DedupWindowMs = 1, wire.Some(maxWindowMs)
		})},
		{Set{Deduplication: DedupDurable}, with(func(w *wire.GuaranteeSet) { w.Deduplication = 2 })},

		{Set{Backpressure: Block}, coreWire},
		{Set{Backpressure: Reject}, with(func(w *wire.GuaranteeSet) { w.Backpressure = 1 })},
		{Set{Backpressure: Drop}, with(func(w *wire.GuaranteeSet) { w.Backpressure = 2 })},
		{Set{Backpressure: Spill}, with(func(w *wire.GuaranteeSet) { w.Backpressure = 3 })},
		{Set{Backpressure: Coalesce}, with(func(w *wire.GuaranteeSet) { w.Backpressure = 4 })},

		{Set{ProducerNaming: NamingFingerprint}, coreWire},
		{Set{ProducerNaming: NamingStable}, with(func(w *wire.GuaranteeSet) { w.ProducerNaming = 1 })},

		{Set{ControlIsolated: false}, coreWire},
		{Set{ControlIsolated: true}, with(func(w *wire.GuaranteeSet) { w.ControlIsolated = 1 })},

		{
			Set{
				Delivery: AtLeastOnce, Acknowledgement: Replicated, Durability: Written, Replicas: 3,
				Ordering: PerProducerDetect, Deduplication: DedupBounded, DedupWindow: time.Minute,
				Backpressure: Drop, ProducerNaming: NamingStable, ControlIsolated: true,
			},
			wire.GuaranteeSet{
				Delivery: 2, Acknowledgement: 4, Durability: wire.Some[uint64](0), Replicas: wire.Some[uint64](3),
				Ordering: 1, Deduplication: 1, DedupWindowMs: wire.Some[uint64](60000),
				Backpressure: 2, ProducerNaming: 1, ControlIsolated: 1,
			},
		},
	}
	for _, tt := range tests {
		if got := tt.set.Wire(); got != tt.wire {
			t.Errorf("(%v).Wire()\n  got  %+v\n  want %+v", tt.set, got, tt.wire)
		}
		back, err := FromWire(tt.wire)
		if err != nil {
			t.Errorf("FromWire(%+v): %v", tt.wire, err)
			continue
		}
		if back != tt.set {
			t.Errorf("FromWire(%+v) = %v, want %v", tt.wire, back, tt.set)
		}
	}
}

func TestFromWireRefusesValuesOutsideTheTables(t *testing.T) {
	tests := []struct {
		name string
		wire wire.GuaranteeSet
		want string
	}{
		{"delivery 3", with(func(w *wire.GuaranteeSet) { w.Delivery = 3 }),
			"guarantee set: wire delivery value 3 is not a known level"},
		{"acknowledgement 6", with(func(w *wire.GuaranteeSet) { w.Acknowledgement = 6 }),
			"guarantee set: wire acknowledgement value 6 is not a known level"},
		{"durability 2", with(func(w *wire.GuaranteeSet) { w.Acknowledgement, w.Durability = 3, wire.Some[uint64](2) }),
			"guarantee set: wire durability value 2 is not a known level"},
		{"replicas 1", with(func(w *wire.GuaranteeSet) { w.Acknowledgement, w.Replicas = 4, wire.Some[uint64](1) }),
			"guarantee set: wire replicas 1 is outside 2..9223372036854775807"},
		{"replicas beyond int", with(func(w *wire.GuaranteeSet) { w.Acknowledgement, w.Replicas = 4, wire.Some[uint64](math.MaxUint64) }),
			"guarantee set: wire replicas 18446744073709551615 is outside 2..9223372036854775807"},
		{"ordering 5", with(func(w *wire.GuaranteeSet) { w.Ordering = 5 }),
			"guarantee set: wire ordering value 5 is not a known level"},
		{"deduplication 3", with(func(w *wire.GuaranteeSet) { w.Deduplication = 3 }),
			"guarantee set: wire deduplication value 3 is not a known level"},
		{"window 0", with(func(w *wire.GuaranteeSet) { w.Deduplication, w.DedupWindowMs = 1, wire.Some[uint64](0) }),
			"guarantee set: wire dedup window 0 ms is outside 1..9223372036854 ms"},
		{"window beyond Duration", with(func(w *wire.GuaranteeSet) { w.Deduplication, w.DedupWindowMs = 1, wire.Some(maxWindowMs+1) }),
			"guarantee set: wire dedup window 9223372036855 ms is outside 1..9223372036854 ms"},
		{"backpressure 5", with(func(w *wire.GuaranteeSet) { w.Backpressure = 5 }),
			"guarantee set: wire backpressure value 5 is not a known level"},
		{"producer naming 2", with(func(w *wire.GuaranteeSet) { w.ProducerNaming = 2 }),
			"guarantee set: wire producer naming value 2 is not a known level"},
		{"control isolated 2", with(func(w *wire.GuaranteeSet) { w.ControlIsolated = 2 }),
			"guarantee set: wire control isolation value 2 is not a known level"},
	}
	for _, tt := range tests {
		s, err := FromWire(tt.wire)
		wantRefusal(t, tt.name, err, tt.want)
		if err != nil && s != (Set{}) {
			t.Errorf("%s: FromWire returned %v alongside its error, want the zero Set", tt.name, s)
		}
	}
}

// TestWireOfInvalidSets pins what Wire makes of sets Validate refuses: an
// unknown level becomes a number no wire table holds, and a negative count,
// a negative window or a fraction of a millisecond never grows.
func TestWireOfInvalidSets(t *testing.T) {
	tests := []struct {
		name string
		set  Set
		want wire.GuaranteeSet
	}{
		{"unknown delivery", Set{Delivery: Delivery(7)}, with(func(w *wire.GuaranteeSet) { w.Delivery = math.MaxUint64 })},
		{"unknown ordering", Set{Ordering: Ordering(9)}, with(func(w *wire.GuaranteeSet) { w.Ordering = math.MaxUint64 })},
		{"negative replicas", Set{Acknowledgement: Replicated, Replicas: -3}, with(func(w *wire.GuaranteeSet) {
			w.Acknowledgement, w.Replicas = 4, wire.Some[uint64](0)
		})},
		{"bounded without window", Set{Deduplication: DedupBounded}, with(func(w *wire.GuaranteeSet) { w.Deduplication = 1 })},
		{"negative window", Set{Deduplication: DedupBounded, DedupWindow: -time.Second}, with(func(w *wire.GuaranteeSet) {
			w.Deduplication, w.DedupWindowMs = 1, wire.Some[uint64](0)
		})},
		{"fractional window", Set{Deduplication: DedupBounded, DedupWindow: 2999 * time.Microsecond}, with(func(w *wire.GuaranteeSet) {
			w.Deduplication, w.DedupWindowMs = 1, wire.Some[uint64](2)
		})},
	}
	for _, tt := range tests {
		if got := tt.set.Wire(); got != tt.want {
			t.Errorf("%s: Wire()\n  got  %+v\n  want %+v", tt.name, got, tt.want)
		}
	}
}
