package wire

import (
	"fmt"
	"slices"
)

// Agreed is the outcome of negotiation (PROTOCOL.md §9.1 step 6).
type Agreed struct {
	// Version is the highest wire version both sides list (always 0 in v0).
	Version uint64
	// SendMaxHeaderBytes is the peer's max_header_bytes: the bound on
	// headers this side sends. The local receive limit is unaffected.
	SendMaxHeaderBytes uint64
	// Guarantees is the effective set: the intersection of both offers.
	Guarantees GuaranteeSet
	// Datagrams is true when both sides list capability 1.
	Datagrams bool
	// PathReports is true when both sides list capability 2 (§8.9).
	PathReports bool
}

// The steps of negotiation a NegotiationError can name.
const (
	// StepHello: a HELLO requires guarantees its own offer does not reach.
	StepHello = "hello"
	// StepVersions: the two version lists have nothing in common (step 1).
	StepVersions = "versions"
	// StepCapabilities: one side requires a capability the other lacks (step 3).
	StepCapabilities = "capabilities"
	// StepIntersect: the offers disagree on an unordered dimension or on a
	// stated durability or replicas axis (step 4).
	StepIntersect = "intersect"
	// StepReaches: the effective set misses a side's requirement (step 5).
	StepReaches = "reaches"
)

// NegotiationError explains a failed negotiation; the connection closes
// with NEGOTIATION_FAILED (4).
type NegotiationError struct {
	// Step is one of the Step constants.
	Step string
	// Dimension names what failed: a guarantee dimension as Reaches names
	// it, "versions", or "capabilities".
	Dimension string
	// Ours and Theirs are the two levels that could not be reconciled, this
	// side's and the peer's: offers for StepIntersect; for StepReaches the
	// requiring side's requirement and the other side's offer; for
	// StepCapabilities the missing code on the requiring side (0 on the
	// other); for StepVersions each side's highest version. For StepHello
	// they are the faulty HELLO's own offer (Ours) and requirement (Theirs).
	// An absent per-axis level reads as 0; Reason says "none".
	Ours, Theirs uint64
	// Reason is the failure in words, naming both levels.
	Reason string
}

// Error reads like "negotiation failed: ordering: we require 1 (PerProducer
// detect), the peer offers 0 (None)".
func (e *NegotiationError) Error() string {
	return "negotiation failed: " + e.Dimension + ": " + e.Reason
}

// Negotiate computes the result of negotiation from the local HELLO (ours)
// and the peer's (theirs), as a pure function: both sides reach the same
// result without a further round trip (§9.1).
//
// Two choices go beyond the literal §9.1 so that both sides fail together:
// required capabilities are checked in both directions, and the effective
// set must reach both sides' requirements (README decision, §17 item 13).
func Negotiate(ours, theirs *Hello) (Agreed, error) {
	if err := selfCovered(ours, "our HELLO"); err != nil {
		return Agreed{}, err
	}
	if err := selfCovered(theirs, "the peer's HELLO"); err != nil {
		return Agreed{}, err
	}
	version, ok := highestCommon(ours.Versions, theirs.Versions)
	if !ok {
		return Agreed{}, &NegotiationError{
			Step: StepVersions, Dimension: "versions",
			Ours: highest(ours.Versions), Theirs: highest(theirs.Versions),
			Reason: fmt.Sprintf("no common wire version: we support %v, the peer supports %v",
				ours.Versions, theirs.Versions),
		}
	}
	if code, ok := firstMissing(theirs.RequiredCapabilities, ours.Capabilities); ok {
		return Agreed{}, &NegotiationError{
			Step: StepCapabilities, Dimension: "capabilities", Theirs: code,
			Reason: fmt.Sprintf("the peer requires capability %s, which we do not support", capabilityName(code)),
		}
	}
	if code, ok := firstMissing(ours.RequiredCapabilities, theirs.Capabilities); ok {
		return Agreed{}, &NegotiationError{
			Step: StepCapabilities, Dimension: "capabilities", Ours: code,
			Reason: fmt.Sprintf("we require capability %s, which the peer does not support", capabilityName(code)),
		}
	}
	effective, err := Intersect(ours.Offered, theirs.Offered)
	if err != nil {
		return Agreed{}, err
	}
	// Each HELLO reaches its own requirement (checked above), so where the
	// effective set falls short of one side's requirement, the other side's
	// offer is the short one: the messages name that offer.
	if dim := shortfall(&effective, &ours.Required); dim >= 0 {
		need, offer := ours.Required.level(dim), theirs.Offered.level(dim)
		return Agreed{}, &NegotiationError{
			Step: StepReaches, Dimension: dimensionNames[dim], Ours: need.V, Theirs: offer.V,
			Reason: "we require " + describeOpt(dim, need) + ", the peer offers " + describeOpt(dim, offer),
		}
	}
	if dim := shortfall(&effective, &theirs.Required); dim >= 0 {
		offer, need := ours.Offered.level(dim), theirs.Required.level(dim)
		return Agreed{}, &NegotiationError{
			Step: StepReaches, Dimension: dimensionNames[dim], Ours: offer.V, Theirs: need.V,
			Reason: "the peer requires " + describeOpt(dim, need) + ", we offer " + describeOpt(dim, offer),
		}
	}
	return Agreed{
		Version:            version,
		SendMaxHeaderBytes: theirs.MaxHeaderBytes,
		Guarantees:         effective,
		Datagrams: slices.Contains(ours.Capabilities, CapabilityDatagram) &&
			slices.Contains(theirs.Capabilities, CapabilityDatagram),
		PathReports: slices.Contains(ours.Capabilities, CapabilityPathReport) &&
			slices.Contains(theirs.Capabilities, CapabilityPathReport),
	}, nil
}

// selfCovered checks that a HELLO's own offer reaches its requirement; a
// decoded HELLO always passes (DecodeHello rejects it otherwise), so this
// only catches a locally built one.
func selfCovered(h *Hello, who string) error {
	if dim := shortfall(&h.Offered, &h.Required); dim >= 0 {
		return &NegotiationError{
			Step: StepHello, Dimension: dimensionNames[dim],
			Ours: h.Offered.level(dim).V, Theirs: h.Required.level(dim).V,
			Reason: who + " requires " + describeOpt(dim, h.Required.level(dim)) +
				" but offers only " + describeOpt(dim, h.Offered.level(dim)),
		}
	}
	return nil
}

// highestCommon returns the highest value in both lists (list order is
// irrelevant, §9.1 step 2).
func highestCommon(a, b []uint64) (uint64, bool) {
	var best uint64
	found := false
	for _, v := range a {
		if slices.Contains(b, v) && (!found || v > best) {
			best, found = v, true
		}
	}
	return best, found
}

// highest returns the largest value of vs, or 0 for an empty list.
func highest(vs []uint64) uint64 {
	if len(vs) == 0 {
		return 0
	}
	return slices.Max(vs)
}

// firstMissing returns the first code of required that have lacks.
func firstMissing(required, have []uint64) (uint64, bool) {
	for _, c := range required {
		if !slices.Contains(have, c) {
			return c, true
		}
	}
	return 0, false
}

// capabilityName renders a capability code: "1 (datagram)".
func capabilityName(code uint64) string {
	switch code {
	case CapabilityDatagram:
		return "1 (datagram)"
	case CapabilityPathReport:
		return "2 (path_report)"
	}
	return itoa(code)
}

// Intersect returns the weaker of two offers (§9.2): the minimum of each
// ladder, the AND of control_isolated, the agreed durability and replicas
// axes kept only where the effective acknowledgement carries them, and the
// shorter dedup window kept only under effective deduplication 1.
//
// It fails with a *NegotiationError (Step StepIntersect; Ours is a's level,
// Theirs b's) when an unordered dimension (backpressure, producer_naming)
// differs, or when both state durability or replicas and disagree.
func Intersect(a, b GuaranteeSet) (GuaranteeSet, error) {
	for _, d := range [...]struct {
		dim  int
		x, y uint64
	}{
		{dimBackpressure, a.Backpressure, b.Backpressure},
		{dimProducerNaming, a.ProducerNaming, b.ProducerNaming},
	} {
		if d.x != d.y {
			return GuaranteeSet{}, incomparable(d.dim, Some(d.x), Some(d.y))
		}
	}
	if a.Durability.Ok && b.Durability.Ok && a.Durability.V != b.Durability.V {
		return GuaranteeSet{}, incomparable(dimDurability, a.Durability, b.Durability)
	}
	if a.Replicas.Ok && b.Replicas.Ok && a.Replicas.V != b.Replicas.V {
		return GuaranteeSet{}, incomparable(dimReplicas, a.Replicas, b.Replicas)
	}
	e := GuaranteeSet{
		Delivery:        min(a.Delivery, b.Delivery),
		Acknowledgement: min(a.Acknowledgement, b.Acknowledgement),
		Ordering:        min(a.Ordering, b.Ordering),
		Deduplication:   min(a.Deduplication, b.Deduplication),
		Backpressure:    a.Backpressure,
		ProducerNaming:  a.ProducerNaming,
		ControlIsolated: a.ControlIsolated & b.ControlIsolated,
	}
	if e.Acknowledgement == LevelStored || e.Acknowledgement == LevelReplicated {
		e.Durability = either(a.Durability, b.Durability)
	}
	if e.Acknowledgement == LevelReplicated {
		e.Replicas = either(a.Replicas, b.Replicas)
	}
	if e.Deduplication == 1 {
		e.DedupWindowMs = either(a.DedupWindowMs, b.DedupWindowMs)
		if a.DedupWindowMs.Ok && b.DedupWindowMs.Ok {
			e.DedupWindowMs.V = min(a.DedupWindowMs.V, b.DedupWindowMs.V)
		}
	}
	return e, nil
}

// either returns whichever of a and b is present (a when both are).
func either(a, b Opt[uint64]) Opt[uint64] {
	if a.Ok {
		return a
	}
	return b
}

// incomparable is the intersect failure of one dimension.
func incomparable(dim int, a, b Opt[uint64]) *NegotiationError {
	return &NegotiationError{
		Step: StepIntersect, Dimension: dimensionNames[dim], Ours: a.V, Theirs: b.V,
		Reason: "we offer " + describeOpt(dim, a) + ", the peer offers " + describeOpt(dim, b) +
			"; the two must be equal",
	}
}

// Reaches reports whether have meets required (§9.3): every ladder at least
// as high, the unordered dimensions equal, control_isolated kept if
// required, and each required axis (durability, replicas, dedup window)
// present in have and at least as strong. On failure dimension names the
// first dimension, in key order, that falls short.
func Reaches(have, required GuaranteeSet) (ok bool, dimension string) {
	if dim := shortfall(&have, &required); dim >= 0 {
		return false, dimensionNames[dim]
	}
	return true, ""
}

// shortfall returns the first dimension where have misses required, or -1.
func shortfall(have, req *GuaranteeSet) int {
	atLeast := func(h, r Opt[uint64]) bool { return !r.Ok || (h.Ok && h.V >= r.V) }
	switch {
	case have.Delivery < req.Delivery:
		return dimDelivery
	case have.Acknowledgement < req.Acknowledgement:
		return dimAcknowledgement
	case !atLeast(have.Durability, req.Durability):
		return dimDurability
	case !atLeast(have.Replicas, req.Replicas):
		return dimReplicas
	case have.Ordering < req.Ordering:
		return dimOrdering
	case have.Deduplication < req.Deduplication:
		return dimDeduplication
	case !atLeast(have.DedupWindowMs, req.DedupWindowMs):
		return dimDedupWindow
	case have.Backpressure != req.Backpressure:
		return dimBackpressure
	case have.ProducerNaming != req.ProducerNaming:
		return dimProducerNaming
	case req.ControlIsolated != 0 && have.ControlIsolated == 0:
		return dimControlIsolated
	}
	return -1
}

// level returns g's level in one dimension, for messages.
func (g *GuaranteeSet) level(dim int) Opt[uint64] {
	switch dim {
	case dimDelivery:
		return Some(g.Delivery)
	case dimAcknowledgement:
		return Some(g.Acknowledgement)
	case dimDurability:
		return g.Durability
	case dimReplicas:
		return g.Replicas
	case dimOrdering:
		return Some(g.Ordering)
	case dimDeduplication:
		return Some(g.Deduplication)
	case dimDedupWindow:
		return g.DedupWindowMs
	case dimBackpressure:
		return Some(g.Backpressure)
	case dimProducerNaming:
		return Some(g.ProducerNaming)
	default:
		return Some(g.ControlIsolated)
	}
}
