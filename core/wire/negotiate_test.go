package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// negotiateBoth runs negotiation from both ends, as the two peers do.
func negotiateBoth(a, b Hello) (fromA, fromB Agreed, errA, errB error) {
	fromA, errA = Negotiate(&a, &b)
	fromB, errB = Negotiate(&b, &a)
	return
}

func TestNegotiateSucceeds(t *testing.T) {
	ordered := helloWith(func(h *Hello) { h.Offered.Ordering, h.Required.Ordering = 1, 1 }) // vector 5
	for _, v := range []struct {
		name string
		a, b Hello
		want Agreed
	}{
		{"two plain v0 peers", DefaultHello(), DefaultHello(),
			Agreed{Version: 0, SendMaxHeaderBytes: 16384, Guarantees: CoreGuarantees()}},
		{"both declare PerProducer detect", ordered, ordered,
			Agreed{SendMaxHeaderBytes: 16384, Guarantees: ordered.Offered}},
		{"an offer nobody requires is weakened to the common level",
			helloWith(func(h *Hello) { h.Offered.Ordering = 2 }), DefaultHello(),
			Agreed{SendMaxHeaderBytes: 16384, Guarantees: CoreGuarantees()}},
		{"highest common version, list order irrelevant",
			helloWith(func(h *Hello) { h.Versions = []uint64{0, 1, 3} }), helloWith(func(h *Hello) { h.Versions = []uint64{3, 2, 1} }),
			Agreed{Version: 3, SendMaxHeaderBytes: 16384, Guarantees: CoreGuarantees()}},
		{"replicas stated by one side are taken",
			helloWith(func(h *Hello) {
				h.Offered = GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](3)}
				h.Required = h.Offered
			}),
			helloWith(func(h *Hello) { h.Offered = GuaranteeSet{Acknowledgement: 5} }),
			Agreed{SendMaxHeaderBytes: 16384, Guarantees: GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](3)}}},
		{"datagrams need both", helloWith(func(h *Hello) { h.Capabilities = []uint64{1} }), DefaultHello(),
			Agreed{SendMaxHeaderBytes: 16384, Guarantees: CoreGuarantees()}},
		{"datagrams agreed", helloWith(func(h *Hello) { h.Capabilities = []uint64{1} }),
			helloWith(func(h *Hello) { h.Capabilities, h.RequiredCapabilities = []uint64{1, 9}, []uint64{1} }),
			Agreed{SendMaxHeaderBytes: 16384, Guarantees: CoreGuarantees(), Datagrams: true}},
	} {
		fromA, fromB, errA, errB := negotiateBoth(v.a, v.b)
		if errA != nil || errB != nil || !reflect.DeepEqual(fromA, v.want) || fromA.Guarantees != fromB.Guarantees {
			t.Errorf("%s:\n A: %+v, %v\n B: %+v, %v\n want %+v", v.name, fromA, errA, fromB, errB, v.want)
		}
	}
}

func TestNegotiateSendLimitIsThePeers(t *testing.T) {
	small := helloWith(func(h *Hello) { h.MaxHeaderBytes = 1024 })
	fromBig, fromSmall, errA, errB := negotiateBoth(DefaultHello(), small)
	if errA != nil || errB != nil || fromBig.SendMaxHeaderBytes != 1024 || fromSmall.SendMaxHeaderBytes != 16384 {
		t.Fatalf("send limits %d and %d (%v, %v)", fromBig.SendMaxHeaderBytes, fromSmall.SendMaxHeaderBytes, errA, errB)
	}
}

// Both sides check both requirements, so both fail, each in its own words.
func TestNegotiateFailsOnBothSides(t *testing.T) {
	for _, v := range []struct {
		name           string
		a, b           Hello
		step, dim      string
		wantA, wantB   string
		oursA, theirsA uint64
	}{
		{"requirement not offered by the peer",
			helloWith(func(h *Hello) { h.Offered.Ordering, h.Required.Ordering = 1, 1 }), DefaultHello(),
			StepReaches, "ordering",
			"negotiation failed: ordering: we require 1 (PerProducer detect), the peer offers 0 (None)",
			"negotiation failed: ordering: the peer requires 1 (PerProducer detect), we offer 0 (None)", 1, 0},
		{"unordered dimension differs",
			helloWith(func(h *Hello) { h.Offered.Backpressure, h.Required.Backpressure = 1, 1 }), DefaultHello(),
			StepIntersect, "backpressure",
			"negotiation failed: backpressure: we offer 1 (Reject), the peer offers 0 (Block); the two must be equal",
			"negotiation failed: backpressure: we offer 0 (Block), the peer offers 1 (Reject); the two must be equal", 1, 0},
		{"durability axes differ",
			helloWith(func(h *Hello) { h.Offered = GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](1)} }),
			helloWith(func(h *Hello) { h.Offered = GuaranteeSet{Acknowledgement: 3, Durability: Some[uint64](0)} }),
			StepIntersect, "durability",
			"durability: we offer 1 (Flushed), the peer offers 0 (Written)", "durability: we offer 0 (Written), the peer offers 1 (Flushed)", 1, 0},
		{"a stronger acknowledgement than the peer offers",
			helloWith(func(h *Hello) {
				h.Offered = GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](3)}
				h.Required = GuaranteeSet{Acknowledgement: 4, Replicas: Some[uint64](3)}
			}),
			helloWith(func(h *Hello) { h.Offered = GuaranteeSet{Acknowledgement: 3} }),
			StepReaches, "acknowledgement",
			"acknowledgement: we require 4 (Replicated), the peer offers 3 (Stored)",
			"acknowledgement: the peer requires 4 (Replicated), we offer 3 (Stored)", 4, 3},
		{"required window longer than the agreed one",
			helloWith(func(h *Hello) {
				h.Offered = GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](1000)}
				h.Required = h.Offered
			}),
			helloWith(func(h *Hello) {
				h.Offered = GuaranteeSet{Acknowledgement: 1, Deduplication: 1, DedupWindowMs: Some[uint64](200)}
			}),
			StepReaches, "dedup_window_ms",
			"dedup_window_ms: we require 1000 ms, the peer offers 200 ms",
			"dedup_window_ms: the peer requires 1000 ms, we offer 200 ms", 1000, 200},
		{"no common version",
			helloWith(func(h *Hello) { h.Versions = []uint64{0} }), helloWith(func(h *Hello) { h.Versions = []uint64{1, 2} }),
			StepVersions, "versions",
			"no common wire version: we support [0], the peer supports [1 2]",
			"no common wire version: we support [1 2], the peer supports [0]", 0, 2},
		{"empty version list",
			DefaultHello(), helloWith(func(h *Hello) { h.Versions = nil }),
			StepVersions, "versions", "the peer supports []", "we support []", 0, 0},
		{"required capability missing",
			helloWith(func(h *Hello) { h.Capabilities, h.RequiredCapabilities = []uint64{1}, []uint64{1} }), DefaultHello(),
			StepCapabilities, "capabilities",
			"we require capability 1 (datagram), which the peer does not support",
			"the peer requires capability 1 (datagram), which we do not support", 1, 0},
	} {
		_, _, errA, errB := negotiateBoth(v.a, v.b)
		for _, side := range []struct {
			err  error
			want string
		}{{errA, v.wantA}, {errB, v.wantB}} {
			var ne *NegotiationError
			if !errors.As(side.err, &ne) || ne.Step != v.step || ne.Dimension != v.dim || !strings.Contains(ne.Error(), side.want) {
				t.Errorf("%s: %v; want step %s, dimension %s, %q", v.name, side.err, v.step, v.dim, side.want)
			}
		}
		var ne *NegotiationError
		if errors.As(errA, &ne) && (ne.Ours != v.oursA || ne.Theirs != v.theirsA) {
			t.Errorf("%s: levels ours %d theirs %d, want %d and %d", v.name, ne.Ours, ne.Theirs, v.oursA, v.theirsA)
		}
	}
}

func TestNegotiateRejectsAHelloThatRequiresMoreThanItOffers(t *testing.T) {
	greedy := helloWith(func(h *Hello) { h.Required.Ordering = 1 })
	_, _, errA, errB := negotiateBoth(greedy, DefaultHello())
	for _, v := range []struct {
		err  error
		want string
	}{
		{errA, "ordering: our HELLO requires 1 (PerProducer detect) but offers only 0 (None)"},
		{errB, "ordering: the peer's HELLO requires 1 (PerProducer detect) but offers only 0 (None)"},
	} {
		var ne *NegotiationError
		if !errors.As(v.err, &ne) || ne.Step != StepHello || !strings.Contains(ne.Error(), v.want) {
			t.Errorf("%v, want %q", v.err, v.want)
		}
	}
	// The same HELLO on the wire is a violation at decode.
	_, err := DecodeHello(greedy.AppendHeader(nil))
	wantViolation(t, err, "guarantees_required is not reached by guarantees_offered (ordering)")

	// An absent axis reads as "none".
	axis := helloWith(func(h *Hello) {
		h.Offered = GuaranteeSet{Acknowledgement: LevelStored}
		h.Required = GuaranteeSet{Acknowledgement: LevelStored, Durability: Some[uint64](0)}
	})
	_, err = Negotiate(&axis, &axis)
	if err == nil || !strings.Contains(err.Error(), "durability: our HELLO requires 0 (Written) but offers only none") {
		t.Errorf("absent axis: %v", err)
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
