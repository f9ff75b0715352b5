package weida

import (
	"fmt"

	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/guarantee"
)

// What a runtime offers against what it requires (BROKER.md O-4).
//
// A HELLO carries an offered and a required set, and the offer must reach
// the requirement (PROTOCOL.md §9). A runtime offers what it requires,
// unless Config.Offer says more: a broker offers Accepted, or Stored at
// its queues' durability, and requires core, so core clients connect and
// a client requiring more than the broker reaches fails the handshake.
//
// Acknowledgement needs care: an offer of it is a promise about what this
// side receives, yet the wire turns every requirement into an offer too.
// Three rules keep an offer of Accepted or Stored true wherever a peer
// could rely on it:
//   - only a runtime that serves queues offers them beyond its requirement;
//   - such a runtime requires core acknowledgement (its consumers settle
//     with reports, not through the handshake);
//   - a runtime that requires them and serves no queues offers them only
//     because the wire makes it, so it may not bind. Its offer then reaches
//     only listeners it dials, and by these rules no listener requires them.

// runtimeCapabilities is what this build can honour beyond core:
// PerProducer ordering in both modes and Bounded deduplication
// (sequence.go, seqreceive.go, dedup.go). Stable producer naming stays
// refused: it needs an L2 supplier (decision 0008).
var runtimeCapabilities = guarantee.Capabilities{Ordering: true, Deduplication: true}

// queueCapabilities adds what a broker's queues can confirm: Accepted,
// Stored up to Flushed, and — on a cluster of at most 5 members —
// Replicated up to Flushed. Which of them a runtime's queues reach is stated
// by its Offer (broker.RuntimeConfig); broker.New refuses an offer its
// queues do not reach. A requirement is checked against it too, since an
// acknowledgement requirement asks only the peer.
var queueCapabilities = guarantee.Capabilities{Ordering: true, Deduplication: true, Accepted: true, Stored: guarantee.Flushed,
	Replicated: guarantee.Flushed, Replicas: maxClusterSize}

// maxClusterSize is the largest cluster a broker serves (docs/CLUSTER.md).
const maxClusterSize = 5

// Offered is the guarantee set this runtime offers on every connection:
// Config.Offer, or Config.Guarantees when Offer is zero. It is the
// runtime's own configuration, not what any connection agreed.
func (rt *Runtime) Offered() GuaranteeSet { return rt.cfg.offered() }

// offered is Offer, or Guarantees when Offer is zero.
func (c Config) offered() GuaranteeSet {
	if c.Offer == (GuaranteeSet{}) {
		return c.Guarantees
	}
	return c.Offer
}

// validateGuarantees refuses, before any connection, a set that is
// malformed, that this build cannot honour, an Offer short of Guarantees,
// and an acknowledgement offer the runtime's endpoints cannot keep.
func (c Config) validateGuarantees() error {
	if err := c.Guarantees.Validate(); err != nil {
		return err
	}
	// Acknowledgement aside, what a runtime requires it must honour too;
	// an acknowledgement requirement asks only the peer.
	if err := c.Guarantees.Supported(queueCapabilities); err != nil {
		return err
	}
	if c.Offer != (GuaranteeSet{}) {
		if err := c.Offer.Validate(); err != nil {
			return errs.Wrap(errs.KindRuntime, err, "config: Offer")
		}
		if ok, why := c.Offer.AtLeast(c.Guarantees); !ok {
			return errs.New(errs.KindRuntime, "config: Offer must reach Guarantees in every dimension, but its %s", why)
		}
		if err := c.Offer.Supported(queueCapabilities); err != nil {
			return errs.Wrap(errs.KindUnsupported, err, "config: Offer")
		}
	}
	offer := c.offered()
	switch {
	case c.ServesQueues && c.requiresConfirmation():
		return errs.New(errs.KindRuntime,
			"config: a runtime that serves queues requires acknowledgement %v of its peers, not %s: "+
				"its consumers settle with reports, not through the handshake (BROKER.md O-4)",
			guarantee.TransportReceipt, acknowledgementText(c.Guarantees))
	case !c.ServesQueues && acknowledgementOf(offer) != acknowledgementOf(c.Guarantees):
		return errs.New(errs.KindRuntime,
			"config: Offer acknowledgement %s needs ServesQueues: only a runtime whose endpoints are "+
				"queues confirms at %v or %v (see broker.RuntimeConfig)",
			acknowledgementText(offer), guarantee.Accepted, guarantee.Stored)
	}
	return nil
}

// bindable is nil when the listener may bind: the runtime is live, and
// its guarantees let it serve diallers (bindRefusal).
func (l *Listener) bindable() error {
	if err := l.rt.usable(); err != nil {
		return err
	}
	return l.rt.cfg.bindRefusal()
}

// bindRefusal is why this runtime may not bind, or nil. A runtime that
// requires Accepted or Stored offers it in its HELLO (the wire says a
// HELLO offers what it requires); serving no queues, it could not keep
// that offer towards a dialler, so it only dials.
func (c Config) bindRefusal() error {
	if c.ServesQueues || !c.requiresConfirmation() {
		return nil
	}
	return errs.New(errs.KindRuntime,
		"bind: this runtime requires acknowledgement %s of its peers, and a HELLO offers what it requires, "+
			"but it serves no queues, so it could not confirm at %[1]s what diallers send it; "+
			"it may only dial (bind with a runtime whose Guarantees require core acknowledgement)",
		acknowledgementText(c.Guarantees))
}

// requiresConfirmation reports whether Guarantees require of every peer an
// acknowledgement above the transport receipt (Accepted or Stored).
func (c Config) requiresConfirmation() bool {
	return c.Guarantees.Acknowledgement.Rank() > guarantee.TransportReceipt.Rank()
}

// acknowledgementOf is s's acknowledgement with its axes, the rest core.
func acknowledgementOf(s GuaranteeSet) GuaranteeSet {
	return GuaranteeSet{Acknowledgement: s.Acknowledgement, Durability: s.Durability, Replicas: s.Replicas}
}

// acknowledgementText names s's acknowledgement with its durability, e.g.
// "Stored(Flushed)".
func acknowledgementText(s GuaranteeSet) string {
	if s.Durability != guarantee.DurabilityUnset {
		return fmt.Sprintf("%v(%v)", s.Acknowledgement, s.Durability)
	}
	return s.Acknowledgement.String()
}
