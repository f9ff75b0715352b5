package broker

import (
	weida "github.com/weida-go/weida/core"
)

// message is one admitted message, ready or unsettled. The queue loop owns
// it; a delivery goroutine reads its immutable parts (id, body, meta,
// bodyLen, producer) while the loop keeps the rest.
type message struct {
	id      uint64 // queue-local, monotone; a persistent queue's store sequence
	body    memBody
	bodyLen uint64
	// digest is a replicated queue's body digest (SHA-256): how its
	// payload store finds a body over 4 KiB.
	digest [32]byte
	meta   weida.TransferMeta // content type, trace context, topic: forwarded as received
	charge int64              // what the message holds of the queue's budget
	// attempts counts deliveries whose bytes were written (BROKER.md §9).
	attempts uint64
	// readFailures counts the body's reads in a row that failed in a way
	// that may pass; it sets the back-off (unreadable.go).
	readFailures int
	// unmatchedAt is the generation of the queue's subscription set at
	// which no subscription matched this message (matching.go); 0 until
	// then.
	unmatchedAt uint64
	// producer is the report the producer ordered, while it can still be
	// answered; nil when it ordered none (or the message was recovered).
	producer *producerReport
	// reencoded would say the body is no longer byte-identical to what the
	// producer sent. Nothing in this broker rewrites a body, so it stays
	// false; relay.go checks it so that a queue that ever rewrites bodies
	// stops relaying offsets instead of renormalising them (0029 §4.3).
	reencoded bool
}

// topic is what a filter matches: a message with no topic is matched as "".
func (m *message) topic() string { return m.meta.Topic }
