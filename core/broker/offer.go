package broker

import (
	weida "github.com/weida-go/weida/core"
	"github.com/weida-go/weida/core/errs"
	"github.com/weida-go/weida/core/guarantee"
)

// What the broker's runtime offers in the handshake (BROKER.md O-4): the
// acknowledgement its queues confirm at, while it requires only core, so
// core clients connect and a client requiring more fails at once, naming
// the acknowledgement, instead of sending to a hop that never confirms.

// RuntimeConfig returns base set up for a runtime that serves cfg's
// queues: ServesQueues, and an Offer whose acknowledgement is the one every
// queue reaches — Accepted when any queue keeps memory, else
// Stored(Written) when any is written, else Stored(Flushed).
//
// The weakest queue decides because an offer is made once per connection,
// before any path is named: a client told Stored(Flushed) may send to any
// of the queues. A client that needs Stored dials a broker whose queues
// are all persistent. base's requirement and its other offered dimensions
// are kept; a base requiring more than core acknowledgement is refused by
// NewRuntime (a broker requires core). With no queues base is returned as
// it is: nothing would keep the offer.
func RuntimeConfig(base weida.Config, cfg Config) weida.Config {
	if withCluster, err := cfg.withClusterQueues(); err == nil {
		cfg = withCluster // a configuration New refuses changes no offer
	}
	if len(cfg.Queues) == 0 {
		return base
	}
	reach, _ := queuesReach(cfg.Queues)
	offer := base.Offer
	if offer == (weida.GuaranteeSet{}) {
		offer = base.Guarantees
	}
	offer.Acknowledgement, offer.Durability, offer.Replicas = reach.Acknowledgement, reach.Durability, reach.Replicas
	base.Offer, base.ServesQueues = offer, true
	return base
}

// queuesReach is the acknowledgement every queue of qs (at least one)
// confirms at, and the first of the weakest queues, which sets it. When
// every queue is replicated it is Replicated(n, d), n the smallest quorum
// and d the weakest durability; else a replicated queue counts as what
// its leader stores.
func queuesReach(qs []QueueConfig) (guarantee.Set, QueueConfig) {
	if reach, weakest, ok := replicatedReach(qs); ok {
		return reach, weakest
	}
	weakest := qs[0]
	for _, q := range qs[1:] {
		if floor(q.Durability) < floor(weakest.Durability) {
			weakest = q
		}
	}
	switch floor(weakest.Durability) {
	case Written:
		return guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Written}, weakest
	case Flushed:
		return guarantee.Set{Acknowledgement: guarantee.Stored, Durability: guarantee.Flushed}, weakest
	}
	return guarantee.Set{Acknowledgement: guarantee.Accepted}, weakest
}

// floor is d, or Memory for an unknown durability, so a value New will
// refuse never raises an offer.
func floor(d Durability) Durability {
	if d < Memory || d > Flushed {
		return Memory
	}
	return d
}

// checkOffer refuses a runtime that offers an acknowledgement some queue
// of qs does not reach: serving them would make its handshake a promise
// the broker breaks. A runtime offering less is honest, only less useful:
// clients requiring more fail the handshake.
func checkOffer(offered guarantee.Set, qs []QueueConfig) error {
	if len(qs) == 0 {
		return nil
	}
	reach, weakest := queuesReach(qs)
	claim := guarantee.Set{Acknowledgement: offered.Acknowledgement, Durability: offered.Durability, Replicas: offered.Replicas}
	if ok, why := reach.AtLeast(claim); !ok {
		return errs.New(errs.KindRuntime,
			"broker: the runtime offers %v, but the queue %q is %v and confirms only %v (%s); "+
				"build the runtime's Config with broker.RuntimeConfig",
			claim, weakest.Path, weakest.Durability, reach, why)
	}
	return nil
}

// replicatedReach is queuesReach of queues that are all replicated; ok is
// false when some queue is not.
func replicatedReach(qs []QueueConfig) (guarantee.Set, QueueConfig, bool) {
	weakest := qs[0]
	for _, q := range qs {
		if !q.replicated() {
			return guarantee.Set{}, QueueConfig{}, false
		}
		if q.replicas < weakest.replicas || floor(q.Durability) < floor(weakest.Durability) {
			weakest = q
		}
	}
	d := guarantee.Written
	if floor(weakest.Durability) == Flushed {
		d = guarantee.Flushed
	}
	return guarantee.Set{Acknowledgement: guarantee.Replicated, Replicas: weakest.replicas, Durability: d}, weakest, true
}
