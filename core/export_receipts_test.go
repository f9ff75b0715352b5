package weida

// TrackedReceipts counts the transport receipts rt's dialled connections
// still track (unresolved). It is no part of the API.
func TrackedReceipts(rt *Runtime) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	n := 0
	for _, pc := range rt.pool {
		n += len(pc.conn.OutstandingReceipts())
	}
	return n
}

// QueuedCopies counts the copies p's writers hold queued (not yet written).
// It is no part of the API.
func QueuedCopies(p *Publisher) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, w := range p.writers {
		w.mu.Lock()
		n += len(w.queue)
		w.mu.Unlock()
	}
	return n
}
