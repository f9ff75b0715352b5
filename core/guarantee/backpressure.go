package guarantee

// Backpressure is what a hop does when it cannot take more. Its levels are
// behaviours, not strengths: the dimension is not ordered, and two sets must
// state the same behaviour to satisfy each other.
type Backpressure uint8

// The backpressure behaviours. Block is the zero value and the core level.
const (
	// Block makes the sender wait (flow-control windows, bounded queues).
	Block Backpressure = iota
	// Reject refuses the message visibly.
	Reject
	// Drop discards a copy; fan-out only.
	Drop
	// Spill moves overflow elsewhere; reserved until a hop can honour it.
	Spill
	// Coalesce keeps only the latest message per topic; reserved until a hop
	// can honour it, and never combined with PerProducerReassemble.
	Coalesce
)

var backpressureNames = []string{
	Block:    "Block",
	Reject:   "Reject",
	Drop:     "Drop",
	Spill:    "Spill",
	Coalesce: "Coalesce",
}

// String returns the spec's name of the behaviour, e.g. "Coalesce".
func (b Backpressure) String() string { return levelName(b, backpressureNames, "Backpressure") }
