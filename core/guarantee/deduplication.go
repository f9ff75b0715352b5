package guarantee

// Deduplication is whether the next hop suppresses a repeated transfer
// identity (producer, scope, sequence) (SEMANTICS.md §4.2). It is a ladder
// None < Bounded < Durable; Bounded carries a window (Set.DedupWindow), where
// a longer window is the stronger promise.
type Deduplication uint8

// The deduplication levels. DedupNone is the zero value and the core level.
const (
	// DedupNone suppresses nothing.
	DedupNone Deduplication = iota
	// DedupBounded suppresses a repeat seen within Set.DedupWindow (and within
	// the per-connection entry cap).
	DedupBounded
	// DedupDurable suppresses repeats across restarts; needs a store (L2 only).
	DedupDurable
)

var deduplicationNames = []string{
	DedupNone:    "None",
	DedupBounded: "Bounded",
	DedupDurable: "Durable",
}

// String returns the spec's name of the level, e.g. "Bounded".
func (d Deduplication) String() string {
	return levelName(d, deduplicationNames, "Deduplication")
}

// Rank is d's position in the deduplication ladder (None 0); a higher rank is
// the stronger promise. A value outside the constants ranks -1.
func (d Deduplication) Rank() int {
	if !known(d, deduplicationNames) {
		return unknownRank
	}
	return int(d)
}
