package guarantee

// Acknowledgement is the completion level the next hop confirms: the moment
// responsibility for a message moves to it (SEMANTICS.md §3.1).
//
// The levels form a ladder None < TransportReceipt < Accepted < Stored <
// Replicated < Processed, but Stored and Replicated carry axes (Durability
// and the replica count) that compare on their own, which makes the whole a
// partial order: Stored with Flushed and Replicated with Written do not
// satisfy each other.
//
// The constants are not numbered in ladder order: TransportReceipt comes
// first so that it, the core level, is the Go zero value. Use Rank to
// compare, never the constants' numbers.
type Acknowledgement uint8

// The acknowledgement levels. TransportReceipt is the zero value and the core level.
const (
	// TransportReceipt: every byte and the FIN were acknowledged by the peer's QUIC stack.
	TransportReceipt Acknowledgement = iota
	// AckNone asks for no confirmation at all. It is below core, so a
	// configured set may not use it; it exists because a peer may declare it.
	AckNone
	// Accepted: the next hop took responsibility in memory (in v0, a broker queue).
	Accepted
	// Stored: the next hop stored the message at the set's Durability.
	Stored
	// Replicated: the message reached Replicas copies, each at the set's Durability.
	Replicated
	// Processed: the next hop's consumer reported success.
	Processed
)

var acknowledgementNames = []string{
	TransportReceipt: "TransportReceipt",
	AckNone:          "None",
	Accepted:         "Accepted",
	Stored:           "Stored",
	Replicated:       "Replicated",
	Processed:        "Processed",
}

// acknowledgementRanks is the ladder position of each level; it differs from
// the constants' order only in that None ranks below TransportReceipt.
var acknowledgementRanks = []int{
	AckNone:          0,
	TransportReceipt: 1,
	Accepted:         2,
	Stored:           3,
	Replicated:       4,
	Processed:        5,
}

// String returns the spec's name of the level, e.g. "TransportReceipt" or "None".
func (a Acknowledgement) String() string {
	return levelName(a, acknowledgementNames, "Acknowledgement")
}

// Rank is a's position in the acknowledgement ladder (None 0, TransportReceipt
// 1, … Processed 5); a higher rank is the stronger promise on this axis. A
// value outside the constants ranks -1.
func (a Acknowledgement) Rank() int {
	if !known(a, acknowledgementNames) {
		return unknownRank
	}
	return acknowledgementRanks[a]
}

// carriesDurability reports whether a level may state a Durability axis.
func (a Acknowledgement) carriesDurability() bool { return a == Stored || a == Replicated }

// Durability is the persistence axis of Stored and Replicated (decision 0004
// §4.1): Written survives the process dying, Flushed survives power loss.
// It is a ladder Written < Flushed; DurabilityUnset states no axis at all.
type Durability uint8

// The durability axis values. DurabilityUnset is the zero value and the core level.
const (
	// DurabilityUnset states no durability: a requirement without it is met by
	// any durability, and a set without it meets no requirement that has one.
	DurabilityUnset Durability = iota
	// Written survives the storing process dying; may be lost to OS or power failure.
	Written
	// Flushed is on durable media; survives power loss on that node.
	Flushed
)

var durabilityNames = []string{
	DurabilityUnset: "Unset",
	Written:         "Written",
	Flushed:         "Flushed",
}

// String returns the spec's name of the axis value, e.g. "Flushed", or "Unset".
func (d Durability) String() string { return levelName(d, durabilityNames, "Durability") }

// Rank orders the axis: Unset 0 < Written 1 < Flushed 2. Unset ranking lowest
// is what makes an absent axis satisfy nothing and be satisfied by anything.
// A value outside the constants ranks -1.
func (d Durability) Rank() int {
	if !known(d, durabilityNames) {
		return unknownRank
	}
	return int(d)
}
