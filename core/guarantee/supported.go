package guarantee

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
}

// Supported checks s, assumed valid, against what the runtime can honour and
// refuses the first level it cannot, naming the dimension and the level. A
// requested guarantee is never silently weakened (SEMANTICS.md §3.3): a
// level the runtime cannot honour is an error at configuration time, not a
// quieter success. The error is an *errs.Error of kind Runtime.
//
// Beyond c, no v0 runtime honours delivery above BestEffort, Stored,
// Replicated or Processed, PerKey or Total ordering, Durable deduplication,
// any backpressure but Block, Stable producer naming, or control isolation.
func (s Set) Supported(c Capabilities) error {
	switch {
	case s.Delivery != BestEffort:
		return unhonoured("delivery", s.Delivery)
	case !s.acknowledgementHonoured(c):
		return unhonoured("acknowledgement", s.Acknowledgement)
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
// honoured; Accepted only by a runtime that queues; nothing above it in v0.
// Durability and Replicas need no check of their own: they only come with
// Stored or Replicated, which are refused here.
func (s Set) acknowledgementHonoured(c Capabilities) bool {
	switch {
	case s.Acknowledgement.Rank() < 0:
		return false
	case s.Acknowledgement.Rank() <= TransportReceipt.Rank():
		return true
	case s.Acknowledgement == Accepted:
		return c.Accepted
	}
	return false
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

func unhonoured(dimension string, value any) error {
	return refuse("%s %v cannot be honoured by this runtime", dimension, value)
}
