package store

// Stats describes a queue's store state.
type Stats struct {
	Live      int    // admitted, unsettled messages
	LiveBytes uint64 // sum of their body lengths (a shared payload counts per message)
	Segments  int    // journal segment files on disk
	TornTails int    // torn journal tails cut by recovery when the queue was opened
	// DroppedAtRecovery counts the messages of a Written queue that
	// recovery dropped because an OS crash or power loss took or tore their
	// payloads (each is logged through Options.Logf).
	DroppedAtRecovery int
	Quarantined       int    // messages taken out by Quarantine, kept on disk
	NextSeq           uint64 // seq the next Admit takes
	LowWater          uint64 // every seq below it is settled
	Generation        uint64 // generation of the newest checkpoint cell written or read
	Durability        Durability
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{
		Live:              len(q.live),
		LiveBytes:         q.liveBytes,
		Segments:          q.j.segmentCount(),
		TornTails:         q.tornTails,
		DroppedAtRecovery: q.dropped,
		Quarantined:       len(q.quarantine),
		NextSeq:           q.nextSeq,
		LowWater:          q.lowWaterLocked(),
		Generation:        q.cell.generation,
		Durability:        q.dur,
	}
}
