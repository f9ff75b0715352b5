package wire

// Guarantee sets: the nested map of HELLO keys 5 and 6 (PROTOCOL.md §8.2),
// its codec and its framing rules. The set algebra of negotiation (§9.2,
// §9.3) is in negotiate.go.

// GuaranteeSet is the nested map of HELLO keys 5 and 6 (PROTOCOL.md §8.2),
// as plain level numbers. Fields at their core level are not written.
type GuaranteeSet struct {
	Delivery        uint64      // key 0: 0 BestEffort (core), 1 AtMostOnce, 2 AtLeastOnce
	Acknowledgement uint64      // key 1: 0 None, 1 TransportReceipt (core), 2..5
	Durability      Opt[uint64] // key 2: 0 Written, 1 Flushed; only with acknowledgement 3 or 4
	Replicas        Opt[uint64] // key 3: >= 2; only with acknowledgement 4
	Ordering        uint64      // key 4: 0 None (core), 1 detect, 2 reassemble, 3 PerKey, 4 Total
	Deduplication   uint64      // key 5: 0 None (core), 1 Bounded, 2 Durable
	DedupWindowMs   Opt[uint64] // key 6: required with deduplication 1, forbidden otherwise
	Backpressure    uint64      // key 7: 0 Block (core), 1 Reject, 2 Drop, 3 Spill, 4 Coalesce
	ProducerNaming  uint64      // key 8: 0 fingerprint (core), 1 stable
	ControlIsolated uint64      // key 9: 0 no (core), 1 yes
}

// CoreGuarantees returns the core set: what an absent or empty map means.
func CoreGuarantees() GuaranteeSet { return GuaranteeSet{Acknowledgement: 1} }

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
