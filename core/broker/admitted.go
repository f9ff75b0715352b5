package broker

// What an admission's producer is told once its body is in (issue 18
// finding 5). Only what is true: a verdict the queue can stand behind, a
// refusal that left nothing anywhere, or — when the store recorded the
// message but could not make it durable — no verdict at all, since a
// restart may or may not bring it back.

// admissionOutcome is the kind of answer an admission gets.
type admissionOutcome int

const (
	// admissionCertified: the message reached the queue's certificate.
	admissionCertified admissionOutcome = iota
	// admissionRefused: nothing of the message remains.
	admissionRefused
	// admissionUnknown: the message was recorded short of the
	// certificate; it may or may not survive a crash.
	admissionUnknown
)

// verdict is an admission's outcome, the level it certifies, and whether
// the queue's loop holds the message (so deliveries may relay to its
// producer's report).
type verdict struct {
	outcome     admissionOutcome
	certificate uint64
	held        bool
}

// conclude offers a received message to the loop and decides its
// verdict; admitErr is receive's error for a message it returned all the
// same (recorded, not durable). A stored message the loop did not take
// (the broker is closing) keeps its certificate: it is in the store, and
// the next start serves it.
func (q *queue) conclude(m *message, admitErr error) verdict {
	held := q.offer(m)
	switch {
	case admitErr != nil:
		q.unconfirmed.Add(1)
		return verdict{outcome: admissionUnknown, held: held}
	case held || q.stored():
		return verdict{outcome: admissionCertified, certificate: q.keep.certificate(), held: held}
	default:
		q.refused.Add(1)
		return verdict{outcome: admissionRefused}
	}
}
