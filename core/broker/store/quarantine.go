package store

// Quarantine takes the live message seq out of the live set for good: its
// payload could not be read (ErrPayloadCorrupt, ErrPayloadMissing) and it
// must be neither delivered as valid nor redelivered in a loop. A
// QUARANTINE record, fsynced before Quarantine returns whatever the
// queue's durability, keeps a restart from bringing it back. The payload
// file is moved to <dir>/quarantine/<sha256-hex>.<seq> for an operator, so
// a later Admit of the same body writes a sound file instead of
// deduplicating against the bad one; and the message no longer pins the
// low-water mark, so its segments are purged like a settled one's. Stats
// counts it as Quarantined until the store closes. Quarantining a message
// already quarantined does nothing.
func (q *Queue) Quarantine(seq uint64, reason string) error {
	q.mu.Lock()
	if q.quarantine[seq] != nil && !q.closed {
		q.mu.Unlock()
		return nil
	}
	m, err := q.liveLocked(seq)
	if err != nil {
		q.mu.Unlock()
		return err
	}
	end, err := q.j.append(&record{typ: recQuarantine, seq: seq, reason: []byte(reason)}, q.nextSeq)
	if err != nil {
		q.mu.Unlock()
		return err
	}
	delete(q.live, seq)
	q.quarantine[seq] = m
	q.liveBytes -= m.BodyLen
	q.mu.Unlock()
	if err := q.j.syncTo(end); err != nil {
		return err
	}
	if m.isInline() {
		return nil
	}
	return q.s.payloads.setAside(m.Digest, seq, func() error { return q.s.syncSettlements(q) })
}
