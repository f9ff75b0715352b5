package wire

import (
	"reflect"
	"testing"
)

func TestValidateGuarantees(t *testing.T) {
	valid := []GuaranteeSet{
		CoreGuarantees(),
		fullGuarantees(),
		{Acknowledgement: LevelStored, Durability: Some[uint64](1)},
		{Acknowledgement: 0},
		{Acknowledgement: 1, Deduplication: 2},
		{Acknowledgement: 1, Backpressure: 4, Ordering: 1},
		{Acknowledgement: 1, Backpressure: 3, Ordering: 2},
	}
	for _, g := range valid {
		if err := ValidateGuarantees(g); err != nil {
			t.Errorf("%+v: %v", g, err)
		}
	}
	for _, v := range []struct {
		edit func(*GuaranteeSet)
		want string
	}{
		{func(g *GuaranteeSet) { g.Delivery = 3 }, "delivery 3 is undefined (0..=2)"},
		{func(g *GuaranteeSet) { g.Acknowledgement = 6 }, "acknowledgement 6 is undefined (0..=5)"},
		{func(g *GuaranteeSet) { g.Acknowledgement, g.Durability = 3, Some[uint64](2) }, "durability 2 is undefined (0..=1)"},
		{func(g *GuaranteeSet) { g.Ordering = 5 }, "ordering 5 is undefined (0..=4)"},
		{func(g *GuaranteeSet) { g.Deduplication = 3 }, "deduplication 3 is undefined (0..=2)"},
		{func(g *GuaranteeSet) { g.Backpressure = 5 }, "backpressure 5 is undefined (0..=4)"},
		{func(g *GuaranteeSet) { g.ProducerNaming = 2 }, "producer_naming 2 is undefined (0..=1)"},
		{func(g *GuaranteeSet) { g.ControlIsolated = 2 }, "control_isolated 2 is undefined (0..=1)"},
		{func(g *GuaranteeSet) { g.Durability = Some[uint64](0) }, "durability without acknowledgement 3 or 4"},
		{func(g *GuaranteeSet) { g.Acknowledgement, g.Durability = 5, Some[uint64](0) }, "durability without acknowledgement 3 or 4"},
		{func(g *GuaranteeSet) { g.Acknowledgement, g.Replicas = 3, Some[uint64](2) }, "replicas without acknowledgement 4"},
		{func(g *GuaranteeSet) { g.Acknowledgement, g.Replicas = 4, Some[uint64](1) }, "replicas 1 is below 2"},
		{func(g *GuaranteeSet) { g.Deduplication = 1 }, "deduplication 1 (Bounded) without dedup_window_ms"},
		{func(g *GuaranteeSet) { g.Deduplication, g.DedupWindowMs = 2, Some[uint64](5) }, "dedup_window_ms without deduplication 1"},
		{func(g *GuaranteeSet) { g.DedupWindowMs = Some[uint64](5) }, "dedup_window_ms without deduplication 1"},
		{func(g *GuaranteeSet) { g.Backpressure, g.Ordering = 4, 2 }, "backpressure 4 (Coalesce) together with ordering 2"},
	} {
		g := CoreGuarantees()
		v.edit(&g)
		wantViolation(t, ValidateGuarantees(g), "guarantee set: "+v.want)
		// The same set in a HELLO is a violation at its key.
		h := DefaultHello()
		h.Offered, h.Required = g, g
		_, err := DecodeHello(h.AppendHeader(nil))
		wantViolation(t, err, "HELLO key 5 (guarantees_offered): "+v.want)
	}
}

func TestGuaranteeMapSkipsUnknownDimensions(t *testing.T) {
	r := reader{buf: unhex(t, "A3 04 01 0A 82 01 02 18 40 A0")}
	got, err := decodeGuarantees(&r, "test")
	want := CoreGuarantees()
	want.Ordering = 1
	if err != nil || !reflect.DeepEqual(got, want) || r.remaining() != 0 {
		t.Fatalf("%+v, %v", got, err)
	}
}
