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

// ProducerNaming is how a transfer's producer is named for ordering and
// deduplication: by the proved fingerprint of the sending peer, or by a stable
// name an L2 supplier assigns. Not ordered: two sets must state the same one.
type ProducerNaming uint8

// The producer naming schemes. NamingFingerprint is the zero value and the core level.
const (
	// NamingFingerprint names the producer by the connection peer's proved fingerprint.
	NamingFingerprint ProducerNaming = iota
	// NamingStable names the producer by a name that outlives connections; needs an L2 supplier.
	NamingStable
)

var producerNamingNames = []string{
	NamingFingerprint: "Fingerprint",
	NamingStable:      "Stable",
}

// String returns the spec's name of the scheme, e.g. "Fingerprint".
func (p ProducerNaming) String() string {
	return levelName(p, producerNamingNames, "ProducerNaming")
}
