package wire

import (
	"errors"
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

func TestIntersect(t *testing.T) {
	core := CoreGuarantees()
	with := func(edit func(*GuaranteeSet)) GuaranteeSet {
		g := CoreGuarantees()
		edit(&g)
		return g
	}
	for _, v := range []struct {
		name    string
		a, b    GuaranteeSet
		want    GuaranteeSet
		failDim string
	}{
		{"core", core, core, core, ""},
		{"ladders take the minimum",
			GuaranteeSet{Delivery: 2, Acknowledgement: 2, Ordering: 2, Deduplication: 2},
			GuaranteeSet{Delivery: 1, Acknowledgement: 5, Ordering: 1, Deduplication: 0},
			GuaranteeSet{Delivery: 1, Acknowledgement: 2, Ordering: 1, Deduplication: 0}, ""},
		{"control_isolated is an AND",
			with(func(g *GuaranteeSet) { g.ControlIsolated = 1 }), core, core, ""},
		{"both isolated", with(func(g *GuaranteeSet) { g.ControlIsolated = 1 }), with(func(g *GuaranteeSet) { g.ControlIsolated = 1 }),
			with(func(g *GuaranteeSet) { g.ControlIsolated = 1 }), ""},
		{"backpressure must be equal", with(func(g *GuaranteeSet) { g.Backpressure = 1 }), core, GuaranteeSet{}, "backpressure"},
		{"producer_naming must be equal", core, with(func(g *GuaranteeSet) { g.ProducerNaming = 1 }), GuaranteeSet{}, "producer_naming"},
		{"durability stated twice, differently",
			GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](0)}, GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](1)},
			GuaranteeSet{}, "durability"},
		{"durability stated once is taken",
			GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](1)}, GuaranteeSet{Acknowledgement: 5},
			GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](1)}, ""},
		{"durability dropped below acknowledgement 3",
			GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](1)}, GuaranteeSet{Acknowledgement: 2},
			GuaranteeSet{Acknowledgement: 2}, ""},
		{"replicas stated twice, differently",
			GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](2)}, GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](3)},
			GuaranteeSet{}, "replicas"},
		{"replicas dropped below acknowledgement 4",
			GuaranteeSet{Acknowledgement: 4, Durability: Some[uint64](0), Replicas: Some[uint64](3)}, GuaranteeSet{Acknowledgement: 3},
			GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](0)}, ""},
		{"two bounded windows give the shorter",
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](500)},
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](200)},
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](200)}, ""},
		{"bounded against durable keeps the one window",
			GuaranteeSet{Acknowledgement: 1, Deduplication: 2},
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](200)},
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](200)}, ""},
		{"no window without bounded deduplication",
			GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](500)}, core, core, ""},
	} {
		got, err := Intersect(v.a, v.b)
		if v.failDim != "" {
			var ne *NegotiationError
			if !errors.As(err, &ne) || ne.Step != StepIntersect || ne.Dimension != v.failDim {
				t.Errorf("%s: %v, want an intersect failure on %s", v.name, err, v.failDim)
			}
			continue
		}
		if err != nil || got != v.want {
			t.Errorf("%s: %+v, %v; want %+v", v.name, got, err, v.want)
		}
		if back, _ := Intersect(v.b, v.a); back != got {
			t.Errorf("%s: not symmetric: %+v", v.name, back)
		}
	}
}

func TestReaches(t *testing.T) {
	have := fullGuarantees() // ack 4, durability 1, replicas 3, window 500, ...
	for _, v := range []struct {
		edit func(*GuaranteeSet) // applied to a copy of have, as the requirement
		dim  string
	}{
		{func(r *GuaranteeSet) {}, ""},
		{func(r *GuaranteeSet) { *r = GuaranteeSet{Backpressure: 2, ProducerNaming: 1} }, ""},
		{func(r *GuaranteeSet) {
			r.Durability, r.Replicas, r.DedupWindowMs = Some[uint64](0), Some[uint64](2), Some[uint64](1)
		}, ""},
		{func(r *GuaranteeSet) { r.Delivery = 3 }, "delivery"},
		{func(r *GuaranteeSet) { r.Acknowledgement = 5 }, "acknowledgement"},
		{func(r *GuaranteeSet) { r.Durability = Some[uint64](2) }, "durability"},
		{func(r *GuaranteeSet) { r.Replicas = Some[uint64](4) }, "replicas"},
		{func(r *GuaranteeSet) { r.Ordering = 2 }, "ordering"},
		{func(r *GuaranteeSet) { r.Deduplication = 2 }, "deduplication"},
		{func(r *GuaranteeSet) { r.DedupWindowMs = Some[uint64](501) }, "dedup_window_ms"},
		{func(r *GuaranteeSet) { r.Backpressure = 0 }, "backpressure"},
		{func(r *GuaranteeSet) { r.ProducerNaming = 0 }, "producer_naming"},
	} {
		req := have
		v.edit(&req)
		if ok, dim := Reaches(have, req); ok != (v.dim == "") || dim != v.dim {
			t.Errorf("required %+v: %v %q, want %q", req, ok, dim, v.dim)
		}
	}
	// A required axis needs a present one; control_isolated is required only when set.
	if ok, dim := Reaches(GuaranteeSet{Acknowledgement: 3}, GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](0)}); ok || dim != "durability" {
		t.Errorf("absent durability: %v %q", ok, dim)
	}
	if ok, dim := Reaches(CoreGuarantees(), GuaranteeSet{Acknowledgement: 1, ControlIsolated: 1}); ok || dim != "control_isolated" {
		t.Errorf("control_isolated: %v %q", ok, dim)
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
