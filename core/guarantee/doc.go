// Package guarantee is weida's typed guarantee set: the one object a user
// configures to say what the next hop must promise (SEMANTICS.md §3,
// decision 0006). A set is never a single "reliable" switch; it holds one
// level per dimension, and introduces no words beyond the spec's vocabulary.
//
// # Dimensions
//
// Each dimension is its own type with named constants:
//
//	Delivery         BestEffort < AtMostOnce < AtLeastOnce
//	Acknowledgement  None < TransportReceipt < Accepted < Stored < Replicated < Processed,
//	                 with the axes Durability (Written < Flushed) and Replicas (n ≥ 2)
//	Ordering         None < PerProducer(detect) < PerProducer(reassemble) < PerKey < Total
//	Deduplication    None < Bounded(window) < Durable; a longer window is stronger
//	Backpressure     Block, Reject, Drop, Spill, Coalesce — behaviours, not ordered
//	ProducerNaming   Fingerprint, Stable — not ordered
//	ControlIsolated  false < true
//
// Ordered dimensions have a Rank; unordered ones must be equal to satisfy
// each other. Acknowledgement is a partial order: its axes compare on their
// own, so Stored(Flushed) and Replicated(3, Written) do not satisfy each
// other. Set.AtLeast is the resulting superset relation.
//
// # Core and the zero value
//
// Core is the default set and exactly what v0 does: BestEffort,
// TransportReceipt, no ordering, no deduplication, Block, fingerprint naming,
// no control isolation. Every dimension's core level is its Go zero value, so
// the zero Set is core and a configuration struct holding a Set defaults to
// core by leaving it alone. On the wire core is the empty map
// (wire.CoreGuarantees), so "core" and "no declaration" are the same bytes.
//
// # Life of a set
//
// A set is checked before any traffic, in two steps that fail visibly rather
// than weaken anything: Validate refuses a malformed set (an unknown level, a
// level below core, axes on the wrong level, coalescing together with
// reassembly); Supported refuses a well-formed set this runtime cannot honour,
// given its Capabilities. Wire and FromWire convert to and from the HELLO
// form (PROTOCOL.md §8.2), on which package wire computes the negotiation:
// the intersection of two offers and whether it reaches each side's
// requirement.
//
// # Sequencing and deduplication
//
// The levels above ordering None and deduplication None need state on each
// connection, and this package holds its pure logic, with no I/O and no
// locks: Sequencer numbers a sender's one-way transfers per scope;
// Detector (PerProducer detect) reports the gaps in what arrives;
// Reassembler (PerProducer reassemble) holds early arrivals and releases
// them in order, generic over the held item; Deduplicator (Bounded) tells a
// repeated identity within its window. Every table is fed by the peer and
// capped before it allocates: MaxSequenceScopes, MaxReorderHold and
// MaxDedupEntries (PROTOCOL.md §13). A connection that agreed on core makes
// none of them.
//
// A runtime requires one set of every peer and offers that set or a
// stronger one (spec README, Semantics item 5, and BROKER.md O-4): the L2
// broker offers Accepted, or Stored at the durability of its queues, and
// requires only core, so core clients connect and a client requiring more
// than the broker reaches fails the handshake. Capabilities.Accepted and
// Capabilities.Stored are how such a runtime says what it can confirm.
package guarantee
