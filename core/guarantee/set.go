package guarantee

import (
	"fmt"
	"strings"
	"time"
)

// Set is a guarantee set: one level per dimension of SEMANTICS.md §3.2. The
// zero value is exactly Core, and every field's zero value is that
// dimension's core level, so a configuration struct that embeds or holds a
// Set defaults to core by leaving it alone.
//
// A Set is a plain comparable value. Build it as a literal naming only the
// dimensions that differ from core, then Validate it and check it against the
// runtime with Supported before any traffic.
type Set struct {
	// Delivery is how often a message may reach the next hop's application.
	// Default BestEffort.
	Delivery Delivery
	// Acknowledgement is the completion level the next hop confirms.
	// Default TransportReceipt.
	Acknowledgement Acknowledgement
	// Durability is the persistence axis of Stored and Replicated; it may be
	// set only with one of those two. Default DurabilityUnset (no axis stated).
	Durability Durability
	// Replicas is the replica count n of Replicated, leader included; it may
	// be set only with Replicated and then must be at least 2. Default 0
	// (no count stated).
	Replicas int
	// Ordering is what the next hop does about a producer's order.
	// Default OrderingNone.
	Ordering Ordering
	// Deduplication is whether the next hop suppresses repeats.
	// Default DedupNone.
	Deduplication Deduplication
	// DedupWindow is the window of DedupBounded: required (positive, a whole
	// number of milliseconds) with it, and zero with every other level.
	// Default 0.
	DedupWindow time.Duration
	// Backpressure is what a hop does when it cannot take more. Not ordered:
	// peers must state the same behaviour. Default Block.
	Backpressure Backpressure
	// ProducerNaming is how producers are named. Not ordered: peers must
	// state the same scheme. Default NamingFingerprint.
	ProducerNaming ProducerNaming
	// ControlIsolated asks that control traffic (such as SUBSCRIBE) never
	// wait behind data in a shared connection window. Ordered: true is the
	// stronger promise. Default false.
	ControlIsolated bool
}

// Core returns the core set: what v0 does and what an endpoint configured
// with nothing gets. It is the zero Set.
func Core() Set { return Set{} }

// IsCore reports whether every dimension of s is at its core level.
func (s Set) IsCore() bool { return s == Set{} }

// String lists the dimensions of s that differ from core as name=value pairs
// in field order, e.g. "ordering=PerProducer(reassemble) deduplication=Bounded
// dedup_window=5s", or "core" when none does. Each field is shown on its own,
// so even a set Validate refuses prints without losing anything.
func (s Set) String() string {
	var parts []string
	add := func(name string, value any) {
		parts = append(parts, fmt.Sprintf("%s=%v", name, value))
	}
	if s.Delivery != BestEffort {
		add("delivery", s.Delivery)
	}
	if s.Acknowledgement != TransportReceipt {
		add("acknowledgement", s.Acknowledgement)
	}
	if s.Durability != DurabilityUnset {
		add("durability", s.Durability)
	}
	if s.Replicas != 0 {
		add("replicas", s.Replicas)
	}
	if s.Ordering != OrderingNone {
		add("ordering", s.Ordering)
	}
	if s.Deduplication != DedupNone {
		add("deduplication", s.Deduplication)
	}
	if s.DedupWindow != 0 {
		add("dedup_window", s.DedupWindow)
	}
	if s.Backpressure != Block {
		add("backpressure", s.Backpressure)
	}
	if s.ProducerNaming != NamingFingerprint {
		add("producer_naming", s.ProducerNaming)
	}
	if s.ControlIsolated {
		add("control_isolated", "yes")
	}
	if len(parts) == 0 {
		return "core"
	}
	return strings.Join(parts, " ")
}
