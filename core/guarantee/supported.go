package guarantee

import (
	"fmt"

	"github.com/weida-go/weida/core/errs"
)

// Capabilities is what a build and its runtime can honour beyond core. The
// zero value is a runtime that honours core and nothing more, so a new
// capability is opt-in where the code that honours it exists.
type Capabilities struct {
	// Ordering: the runtime sequences one-way transfers and honours
	// PerProducerDetect and PerProducerReassemble.
	Ordering bool
	// Deduplication: the runtime keeps a bounded dedup window and honours DedupBounded.
	Deduplication bool
	// Accepted: the runtime takes messages into a queue and reports Accepted
	// (in v0, a broker).
	Accepted bool
	// Stored is the strongest durability at which the runtime stores a
	// message before it confirms it (in v0, a broker with a store), or
	// DurabilityUnset when it stores none. A runtime that stores at Written
	// honours Stored(Written) and Stored with no axis, not Stored(Flushed);
	// and since Accepted < Stored on the ladder, it honours Accepted too.
	Stored Durability
	// Replicated is the strongest durability at which the runtime holds a
	// message on Replicas members before it confirms it (a replicated
	// broker cluster), or DurabilityUnset. It honours Replicated(n, d) for
	// n up to Replicas and d up to Replicated.
	Replicated Durability
	Replicas   int
}

// Supported checks s, assumed valid, against what the runtime can honour and
// refuses the first level it cannot, naming the dimension and the level. A
// requested guarantee is never silently weakened (SEMANTICS.md §3.3): a
// level the runtime cannot honour is an error at configuration time, not a
// quieter success. The error is an *errs.Error of kind Unsupported naming
// the dimension.
//
// Beyond c, no v0 runtime honours delivery above BestEffort, Processed, PerKey or Total ordering, Durable deduplication,
// any backpressure but Block, Stable producer naming, or control isolation.
func (s Set) Supported(c Capabilities) error {
	switch {
	case s.Delivery != BestEffort:
		return unhonoured("delivery", s.Delivery)
	case !s.acknowledgementHonoured(c):
		return unhonoured("acknowledgement", s.acknowledgementWithAxis())
	case !s.orderingHonoured(c):
		return unhonoured("ordering", s.Ordering)
	case !s.deduplicationHonoured(c):
		return unhonoured("deduplication", s.Deduplication)
	case s.Backpressure != Block:
		return unhonoured("backpressure", s.Backpressure)
	case s.ProducerNaming != NamingFingerprint:
		return unhonoured("producer naming", s.ProducerNaming)
	case s.ControlIsolated:
		return unhonoured("control isolation", "yes")
	}
	return nil
}

// acknowledgementHonoured: anything up to the transport receipt is always
// honoured; Accepted only by a runtime that queues; Stored only by one
// that stores, at no stronger a durability than it stores at; Replicated
// only by one that replicates, to no more replicas and at no stronger a
// durability than it does; nothing above that in v0.
func (s Set) acknowledgementHonoured(c Capabilities) bool {
	stores := c.Stored != DurabilityUnset && c.Stored.Rank() >= 0
	replicates := c.Replicated != DurabilityUnset && c.Replicated.Rank() >= 0
	switch {
	case s.Acknowledgement.Rank() < 0:
		return false
	case s.Acknowledgement.Rank() <= TransportReceipt.Rank():
		return true
	case s.Acknowledgement == Accepted:
		return c.Accepted || stores
	case s.Acknowledgement == Stored:
		return stores && s.Durability.Rank() >= 0 && s.Durability.Rank() <= c.Stored.Rank()
	case s.Acknowledgement == Replicated:
		return replicates && s.Durability.Rank() >= 0 && s.Durability.Rank() <= c.Replicated.Rank() &&
			s.Replicas <= c.Replicas
	}
	return false
}

// acknowledgementWithAxis names the level with its durability, e.g.
// "Stored(Flushed)": a store at Written refuses Stored only at Flushed.
func (s Set) acknowledgementWithAxis() string {
	if s.Acknowledgement == Replicated && s.Durability != DurabilityUnset {
		return fmt.Sprintf("%v(%d, %v)", s.Acknowledgement, s.Replicas, s.Durability)
	}
	if s.Acknowledgement == Replicated {
		return fmt.Sprintf("%v(%d)", s.Acknowledgement, s.Replicas)
	}
	if s.Acknowledgement == Stored && s.Durability != DurabilityUnset {
		return fmt.Sprintf("%v(%v)", s.Acknowledgement, s.Durability)
	}
	return s.Acknowledgement.String()
}

func (s Set) orderingHonoured(c Capabilities) bool {
	switch s.Ordering {
	case OrderingNone:
		return true
	case PerProducerDetect, PerProducerReassemble:
		return c.Ordering
	}
	return false
}

func (s Set) deduplicationHonoured(c Capabilities) bool {
	switch s.Deduplication {
	case DedupNone:
		return true
	case DedupBounded:
		return c.Deduplication
	}
	return false
}

// unhonoured is a well-formed level this runtime cannot honour: Unsupported
// (a malformed set is Runtime, validate.go), naming the dimension.
func unhonoured(dimension string, value any) error {
	return errs.New(errs.KindUnsupported, "guarantee set: %s %v cannot be honoured by this runtime", dimension, value)
}
