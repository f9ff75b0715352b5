package guarantee

import "fmt"

// AtLeast reports whether s satisfies other under the superset rule of
// SEMANTICS.md §3.3: every ordered dimension of s is at least other's in that
// dimension's own order, and every unordered dimension is equal. The axes of
// Stored and Replicated and the dedup window compare on their own, as
// PROTOCOL.md §9.3 does: an axis other leaves unstated is met by anything,
// and one other states is met only by a stated value at least as strong.
//
// When s falls short, the string names the first dimension that does, in
// field order, with both values, e.g. "ordering PerProducer(detect) does not
// reach PerProducer(reassemble)"; it is empty when s satisfies other. A value
// outside a dimension's table never satisfies anything.
func (s Set) AtLeast(other Set) (bool, string) {
	shortfalls := []struct {
		short     bool
		dimension string
		have      any
		want      any
		unordered bool
	}{
		{below(s.Delivery.Rank(), other.Delivery.Rank()), "delivery", s.Delivery, other.Delivery, false},
		{below(s.Acknowledgement.Rank(), other.Acknowledgement.Rank()), "acknowledgement", s.Acknowledgement, other.Acknowledgement, false},
		{below(s.Durability.Rank(), other.Durability.Rank()), "durability", s.Durability, other.Durability, false},
		{s.Replicas < other.Replicas, "replicas", countText(s.Replicas), countText(other.Replicas), false},
		{below(s.Ordering.Rank(), other.Ordering.Rank()), "ordering", s.Ordering, other.Ordering, false},
		{below(s.Deduplication.Rank(), other.Deduplication.Rank()), "deduplication", s.Deduplication, other.Deduplication, false},
		{s.DedupWindow < other.DedupWindow, "dedup window", countText(s.DedupWindow), countText(other.DedupWindow), false},
		{differs(s.Backpressure, other.Backpressure, backpressureNames), "backpressure", s.Backpressure, other.Backpressure, true},
		{differs(s.ProducerNaming, other.ProducerNaming, producerNamingNames), "producer naming", s.ProducerNaming, other.ProducerNaming, true},
		{other.ControlIsolated && !s.ControlIsolated, "control isolation", yesNo(s.ControlIsolated), yesNo(other.ControlIsolated), false},
	}
	for _, f := range shortfalls {
		if !f.short {
			continue
		}
		if f.unordered {
			return false, fmt.Sprintf("%s %v differs from %v", f.dimension, f.have, f.want)
		}
		return false, fmt.Sprintf("%s %v does not reach %v", f.dimension, f.have, f.want)
	}
	return true, ""
}

// below compares two ranks. An unknown have (rank -1) is below every real
// level by its rank; an unknown want is met by nothing, not even itself.
func below(have, want int) bool {
	return want == unknownRank || have < want
}

// differs compares two unordered values; an unknown value matches nothing.
func differs[T level](have, want T, names []string) bool {
	return have != want || !known(have, names)
}

// countText shows a zero count or window as "unset", which is what zero means.
func countText[T int | ~int64](v T) any {
	if v == 0 {
		return "unset"
	}
	return v
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
