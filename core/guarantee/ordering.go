package guarantee

// Ordering is what the next hop does about the order of one producer's
// one-way transfers (SEMANTICS.md §4.1). It is a ladder None < detect <
// reassemble < PerKey < Total: reassemble counts as stronger than detect
// (spec README, Semantics item 3).
type Ordering uint8

// The ordering levels. OrderingNone is the zero value and the core level.
const (
	// OrderingNone numbers nothing and promises no order.
	OrderingNone Ordering = iota
	// PerProducerDetect numbers transfers and reports gaps; it holds nothing back.
	PerProducerDetect
	// PerProducerReassemble holds early arrivals and releases them in sequence,
	// within a bounded hold.
	PerProducerReassemble
	// PerKey orders per message key; needs an L2 queue.
	PerKey
	// Total is one order over everything; its semantics are unspecified in v0.
	Total
)

var orderingNames = []string{
	OrderingNone:          "None",
	PerProducerDetect:     "PerProducer(detect)",
	PerProducerReassemble: "PerProducer(reassemble)",
	PerKey:                "PerKey",
	Total:                 "Total",
}

// String returns the spec's name of the level, e.g. "PerProducer(reassemble)".
func (o Ordering) String() string { return levelName(o, orderingNames, "Ordering") }

// Rank is o's position in the ordering ladder (None 0); a higher rank is the
// stronger promise. A value outside the constants ranks -1.
func (o Ordering) Rank() int {
	if !known(o, orderingNames) {
		return unknownRank
	}
	return int(o)
}
