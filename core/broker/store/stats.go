package store

// Stats describes a queue's store state.
type Stats struct {
	Live       int    // admitted, unsettled messages
	LiveBytes  uint64 // sum of their body lengths (a shared payload counts per message)
	Segments   int    // journal segment files on disk
	TornTails  int    // torn journal tails cut by recovery when the queue was opened
	NextSeq    uint64 // seq the next Admit takes
	LowWater   uint64 // every seq below it is settled
	Generation uint64 // generation of the newest checkpoint cell written or read
	Durability Durability
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{
		Live:       len(q.live),
		LiveBytes:  q.liveBytes,
		Segments:   q.j.segmentCount(),
		TornTails:  q.tornTails,
		NextSeq:    q.nextSeq,
		LowWater:   q.lowWaterLocked(),
		Generation: q.cell.generation,
		Durability: q.dur,
	}
}
