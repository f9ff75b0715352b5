package guarantee

import (
	"time"

	"github.com/weida-go/weida/core/errs"
)

// minReplicas is the smallest replica count Replicated may name: one copy is
// Stored, and Replicated(1, …) is never reportable (decision 0004 §4.2).
const minReplicas = 2

// Validate checks s at configuration time, before any connection is attempted:
// every field holds a known level, no ordered dimension is below core, and the
// levels combine. It reports the first problem, in field order, as an
// *errs.Error of kind Runtime naming the dimension and the value.
//
// Validate says nothing about whether this runtime can honour s; Supported does.
func (s Set) Validate() error {
	checks := []func() error{
		s.validateLevels,
		s.validateAcknowledgement,
		s.validateDurability,
		s.validateReplicas,
		s.validateDedupWindow,
		s.validateCombinations,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateLevels refuses a value outside any dimension's table.
func (s Set) validateLevels() error {
	switch {
	case !known(s.Delivery, deliveryNames):
		return unknownLevel("delivery", s.Delivery)
	case !known(s.Acknowledgement, acknowledgementNames):
		return unknownLevel("acknowledgement", s.Acknowledgement)
	case !known(s.Durability, durabilityNames):
		return unknownLevel("durability", s.Durability)
	case !known(s.Ordering, orderingNames):
		return unknownLevel("ordering", s.Ordering)
	case !known(s.Deduplication, deduplicationNames):
		return unknownLevel("deduplication", s.Deduplication)
	case !known(s.Backpressure, backpressureNames):
		return unknownLevel("backpressure", s.Backpressure)
	case !known(s.ProducerNaming, producerNamingNames):
		return unknownLevel("producer naming", s.ProducerNaming)
	}
	return nil
}

// validateAcknowledgement refuses the one level below core: inside weida a
// configured set may only be a superset of core (SEMANTICS.md §3.3).
func (s Set) validateAcknowledgement() error {
	if s.Acknowledgement.Rank() < TransportReceipt.Rank() {
		return refuse("acknowledgement %v is below core (%v); a configured set may only be a superset of core",
			s.Acknowledgement, TransportReceipt)
	}
	return nil
}

func (s Set) validateDurability() error {
	if s.Durability != DurabilityUnset && !s.Acknowledgement.carriesDurability() {
		return refuse("durability %v requires acknowledgement %v or %v, not %v",
			s.Durability, Stored, Replicated, s.Acknowledgement)
	}
	return nil
}

func (s Set) validateReplicas() error {
	if s.Replicas == 0 {
		return nil
	}
	if s.Acknowledgement != Replicated {
		return refuse("replicas %d requires acknowledgement %v, not %v",
			s.Replicas, Replicated, s.Acknowledgement)
	}
	if s.Replicas < minReplicas {
		return refuse("replicas %d is below the minimum of %d (the leader counts as one)",
			s.Replicas, minReplicas)
	}
	return nil
}

// validateDedupWindow ties the window to Bounded and to what the wire can
// carry: whole milliseconds (PROTOCOL.md §8.2 key 6). Any positive Duration
// in whole milliseconds fits the wire's uint64, so no upper bound is needed.
func (s Set) validateDedupWindow() error {
	if s.Deduplication != DedupBounded {
		if s.DedupWindow != 0 {
			return refuse("dedup window %v requires deduplication %v, not %v",
				s.DedupWindow, DedupBounded, s.Deduplication)
		}
		return nil
	}
	if s.DedupWindow <= 0 {
		return refuse("deduplication %v requires a positive dedup window, got %v",
			DedupBounded, s.DedupWindow)
	}
	if s.DedupWindow%time.Millisecond != 0 {
		return refuse("dedup window %v is not a whole number of milliseconds", s.DedupWindow)
	}
	return nil
}

// validateCombinations refuses pairs of valid levels that contradict each
// other. Coalescing discards superseded messages, which would leave holes
// reassembly waits for (spec README, Wire decisions).
func (s Set) validateCombinations() error {
	if s.Ordering == PerProducerReassemble && s.Backpressure == Coalesce {
		return refuse("ordering %v cannot be combined with backpressure %v", s.Ordering, s.Backpressure)
	}
	return nil
}

func unknownLevel(dimension string, value any) error {
	return refuse("%s %v is not a known level", dimension, value)
}

// refuse builds this package's configuration error: kind Runtime, one
// sentence prefixed with "guarantee set: ".
func refuse(format string, args ...any) error {
	return errs.New(errs.KindRuntime, "guarantee set: "+format, args...)
}
