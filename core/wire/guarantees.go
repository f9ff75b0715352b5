package wire

// Guarantee sets: the nested map of HELLO keys 5 and 6 (PROTOCOL.md §8.2)
// and the pure set algebra of negotiation (§9.2, §9.3).

// appendGuarantees appends g as a map holding only its non-core dimensions.
func appendGuarantees(b []byte, g *GuaranteeSet) []byte {
	n := count1(g.Delivery != 0) + count1(g.Acknowledgement != 1) + count1(g.Durability.Ok) +
		count1(g.Replicas.Ok) + count1(g.Ordering != 0) + count1(g.Deduplication != 0) +
		count1(g.DedupWindowMs.Ok) + count1(g.Backpressure != 0) + count1(g.ProducerNaming != 0) +
		count1(g.ControlIsolated != 0)
	b = appendHead(b, majorMap, n)
	if g.Delivery != 0 {
		b = appendUintKey(b, dimDelivery, g.Delivery)
	}
	if g.Acknowledgement != 1 {
		b = appendUintKey(b, dimAcknowledgement, g.Acknowledgement)
	}
	if g.Durability.Ok {
		b = appendUintKey(b, dimDurability, g.Durability.V)
	}
	if g.Replicas.Ok {
		b = appendUintKey(b, dimReplicas, g.Replicas.V)
	}
	if g.Ordering != 0 {
		b = appendUintKey(b, dimOrdering, g.Ordering)
	}
	if g.Deduplication != 0 {
		b = appendUintKey(b, dimDeduplication, g.Deduplication)
	}
	if g.DedupWindowMs.Ok {
		b = appendUintKey(b, dimDedupWindow, g.DedupWindowMs.V)
	}
	if g.Backpressure != 0 {
		b = appendUintKey(b, dimBackpressure, g.Backpressure)
	}
	if g.ProducerNaming != 0 {
		b = appendUintKey(b, dimProducerNaming, g.ProducerNaming)
	}
	if g.ControlIsolated != 0 {
		b = appendUintKey(b, dimControlIsolated, g.ControlIsolated)
	}
	return b
}

// decodeGuarantees reads a guarantee map at r; absent dimensions keep their
// core level, unknown keys are skipped. frame names the HELLO key for
// messages. The result is checked by guaranteeProblem.
func decodeGuarantees(r *reader, frame string) (GuaranteeSet, error) {
	g := CoreGuarantees()
	m, err := openNested(r, frame, dimensionNames)
	if err != nil {
		return g, err
	}
	for {
		key, more, err := m.next(r)
		if err != nil {
			return g, err
		}
		if !more {
			break
		}
		switch key {
		case dimDelivery:
			g.Delivery, err = r.uint()
		case dimAcknowledgement:
			g.Acknowledgement, err = r.uint()
		case dimDurability:
			g.Durability.V, err = r.uint()
			g.Durability.Ok = true
		case dimReplicas:
			g.Replicas.V, err = r.uint()
			g.Replicas.Ok = true
		case dimOrdering:
			g.Ordering, err = r.uint()
		case dimDeduplication:
			g.Deduplication, err = r.uint()
		case dimDedupWindow:
			g.DedupWindowMs.V, err = r.uint()
			g.DedupWindowMs.Ok = true
		case dimBackpressure:
			g.Backpressure, err = r.uint()
		case dimProducerNaming:
			g.ProducerNaming, err = r.uint()
		case dimControlIsolated:
			g.ControlIsolated, err = r.uint()
		default:
			err = r.skip()
		}
		if err != nil {
			return g, m.keyError(key, err)
		}
	}
	if problem := guaranteeProblem(&g); problem != "" {
		return g, violation("%s: %s", frame, problem)
	}
	return g, nil
}

// ValidateGuarantees applies the framing rules of §8.2 to g: every value in
// its table, durability only with acknowledgement 3 or 4, replicas (>= 2)
// only with acknowledgement 4, a dedup window exactly with deduplication 1,
// control_isolated 0 or 1, and no Coalesce backpressure (4) together with
// reassemble ordering (2). A breach is a *ViolationError.
func ValidateGuarantees(g GuaranteeSet) error {
	if problem := guaranteeProblem(&g); problem != "" {
		return violation("guarantee set: %s", problem)
	}
	return nil
}

// guaranteeProblem returns what breaks the framing rules, or "".
func guaranteeProblem(g *GuaranteeSet) string {
	levels := [dimCount]Opt[uint64]{
		dimDelivery:        Some(g.Delivery),
		dimAcknowledgement: Some(g.Acknowledgement),
		dimDurability:      g.Durability,
		dimOrdering:        Some(g.Ordering),
		dimDeduplication:   Some(g.Deduplication),
		dimBackpressure:    Some(g.Backpressure),
		dimProducerNaming:  Some(g.ProducerNaming),
		dimControlIsolated: Some(g.ControlIsolated),
	}
	for dim, v := range levels {
		if v.Ok && v.V >= uint64(len(levelNames[dim])) {
			return dimensionNames[dim] + " " + itoa(v.V) + " is undefined (0..=" + itoa(uint64(len(levelNames[dim])-1)) + ")"
		}
	}
	ack := g.Acknowledgement
	switch {
	case g.Durability.Ok && ack != LevelStored && ack != LevelReplicated:
		return "durability without acknowledgement 3 or 4"
	case g.Replicas.Ok && ack != LevelReplicated:
		return "replicas without acknowledgement 4"
	case g.Replicas.Ok && g.Replicas.V < 2:
		return "replicas " + itoa(g.Replicas.V) + " is below 2"
	case g.Deduplication == 1 && !g.DedupWindowMs.Ok:
		return "deduplication 1 (Bounded) without dedup_window_ms"
	case g.DedupWindowMs.Ok && g.Deduplication != 1:
		return "dedup_window_ms without deduplication 1 (Bounded)"
	case g.Backpressure == 4 && g.Ordering == 2:
		return "backpressure 4 (Coalesce) together with ordering 2 (PerProducer reassemble)"
	}
	return ""
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
