package weida

// The header keys only a queue writes, read on the receiving side.

// DeliveryAttempt is how many times a queue has handed this message out,
// this time included (DATA key 12). A queue writes the key only from the
// second attempt on, so an absent key reads as 1 with ok = false. Read any
// value above 1 as "this may be a duplicate" and nothing more: it does not
// say why earlier attempts did not settle (PROTOCOL.md §8.3.6).
func (m IncomingMeta) DeliveryAttempt() (attempt uint64, ok bool) {
	if a := m.hdr().DeliveryAttempt; a.Ok {
		return a.V, true
	}
	return 1, false
}

// Achieved is the level the answering hop certifies for the message a reply
// answers (DATA key 8): a queue's confirm carries Accepted, or Stored when
// it holds the message at its configured durability. False when absent,
// which claims nothing beyond the transport receipt (absent is not 0).
func (m IncomingMeta) Achieved() (level uint64, ok bool) {
	return m.hdr().Achieved.V, m.hdr().Achieved.Ok
}
