package store

// Quarantine takes the live message seq out of the live set for good: its
// payload could not be read (ErrPayloadCorrupt, ErrPayloadMissing) and it
// must be neither delivered as valid nor redelivered in a loop. A
// QUARANTINE record, fsynced before Quarantine returns whatever the
// queue's durability, keeps a restart from bringing it back; the message
// keeps its payload file (for an operator: the reason is in the record,
// the digest names the file) and its seq pins the low-water mark, so the
// segments from its ADMIT on stay too. Stats counts it as Quarantined.
// Quarantining a message already quarantined does nothing.
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
	return q.j.syncTo(end)
}
