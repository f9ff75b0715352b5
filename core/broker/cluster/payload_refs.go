package cluster

import "time"

// The payload store's bookkeeping of which bodies may still be needed:
// pins (Commits whose ADMIT is not in the log yet), holds (ADMITs in the
// log, not yet applied) and the live set (the FSM's references). A body
// none of them keeps is deleted.

// Release drops one pin of a committed body whose ADMIT will never be
// applied here (it was refused before entering the log). A body whose
// ADMIT's fate is unknown (ErrIndeterminate) must stay pinned.
func (p *Payloads) Release(digest [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unpinLocked(digest)
	p.dropIfUnusedLocked(digest)
}

// pinTTL is how long a Commit's pin lasts at most: its ADMIT reaches the
// log within a proposal's timeout, or never.
const pinTTL = 2 * time.Minute

// pin counts the Commits of one body waiting for their ADMITs.
type pin struct {
	count int
	last  time.Time // the latest Commit's
}

func (p *Payloads) pinLocked(d [32]byte) {
	pn := p.pins[d]
	if pn == nil {
		pn = &pin{}
		p.pins[d] = pn
	}
	pn.count++
	pn.last = time.Now()
}

// expirePins drops the pins of bodies last committed before cutoff, and
// deletes those nothing else keeps.
func (p *Payloads) expirePins(cutoff time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for d, pn := range p.pins {
		if pn.last.Before(cutoff) {
			delete(p.pins, d)
			p.dropIfUnusedLocked(d)
		}
	}
}

func (p *Payloads) unpinLocked(d [32]byte) {
	if pn := p.pins[d]; pn != nil && pn.count > 1 {
		pn.count--
	} else {
		delete(p.pins, d)
	}
}

// hold records that the ADMIT at log index names body d, once the body is
// here; false when it is not (the caller fetches it and holds again). A
// Commit's pin of d becomes the hold.
func (p *Payloads) hold(index uint64, d [32]byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if had, ok := p.holds[index]; ok {
		if had == d {
			return true
		}
		p.unholdLocked(index, had)
	}
	if !p.existsLocked(d) {
		return false
	}
	p.unpinLocked(d)
	p.holds[index] = d
	p.held[d]++
	return true
}

// holdStored holds d for an ADMIT found in the log at open, whether or
// not the body is here: one it lacks is missing, for the repair to fetch.
func (p *Payloads) holdStored(index uint64, d [32]byte, length uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holds[index] = d
	p.held[d]++
	p.noteMissingLocked(d, length, index)
}

func (p *Payloads) unholdLocked(index uint64, d [32]byte) {
	delete(p.holds, index)
	if p.held[d] > 1 {
		p.held[d]--
	} else {
		delete(p.held, d)
	}
	p.dropIfUnusedLocked(d)
}

// releaseHolds ends the holds of log indexes min to max: entries cut from
// the log (a divergent suffix, or a prefix compacted after a snapshot).
func (p *Payloads) releaseHolds(lo, hi uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for index, d := range p.holds {
		if index >= lo && index <= hi {
			p.unholdLocked(index, d)
		}
	}
}

// dropIfUnusedLocked deletes d when no live message refers to it and no
// ADMIT may come to. A failed delete leaves a file nothing names (space,
// not a wrong answer).
func (p *Payloads) dropIfUnusedLocked(d [32]byte) {
	if p.live[d] || p.pins[d] != nil || p.held[d] > 0 {
		return
	}
	delete(p.synced, d)
	p.fs.Remove(p.path(d))
}

// admitted is called by the FSM when it applies the ADMIT at index of a
// streamed body: the live message keeps the body from now on.
func (p *Payloads) admitted(index uint64, d [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live[d] = true
	if p.holds[index] == d {
		p.unholdLocked(index, d)
	}
}

// freed is called by the FSM, after applying a SETTLE, with the bodies no
// live message refers to any more.
func (p *Payloads) freed(ds [][32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range ds {
		p.forgetMissingLocked(d)
		delete(p.live, d)
		p.dropIfUnusedLocked(d)
	}
}
