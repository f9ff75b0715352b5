package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"
)

// Bodies the state needs and the store lacks (a member restored from a
// snapshot, or whose written-durability body a power cut took) are
// fetched by the group's repair goroutine; until then reading one fails
// naming its digest.

// Backoff of a repair whose fetch failed.
const (
	repairBackoffMin = 100 * time.Millisecond
	repairBackoffMax = 5 * time.Second
)

// noteMissingLocked records that the state at log index (0: not known)
// needs body d, unless the store has it, and wakes the repair.
func (p *Payloads) noteMissingLocked(d [32]byte, length, index uint64) {
	if p.existsLocked(d) {
		return
	}
	if w, had := p.missing[d]; !had {
		p.missing[d] = wantedBody{length: length, index: index}
		p.noteMissingChangedLocked()
	} else if index > w.index {
		p.missing[d] = wantedBody{length: length, index: index}
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *Payloads) forgetMissingLocked(d [32]byte) {
	if _, had := p.missing[d]; had {
		delete(p.missing, d)
		p.noteMissingChangedLocked()
	}
}

func (p *Payloads) noteMissingChangedLocked() {
	close(p.missingChanged)
	p.missingChanged = make(chan struct{})
}

// Missing returns how many bodies the state needs that this member has
// yet to fetch, and a channel closed when that changes.
func (p *Payloads) Missing() (int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.missing), p.missingChanged
}

func (p *Payloads) missingNow() map[[32]byte]wantedBody {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[[32]byte]wantedBody, len(p.missing))
	for d, n := range p.missing {
		out[d] = n
	}
	return out
}

// restored makes the store follow a state restored from a snapshot, whose
// streamed bodies are live (digest → length): every other body not pinned
// or held is deleted, and each live one the store lacks is missing.
func (p *Payloads) restored(live map[[32]byte]uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.live)
	for d := range live {
		p.live[d] = true
	}
	for i := range 256 {
		dir := filepath.Join(p.root, fmt.Sprintf("%02x", i))
		entries, err := p.fs.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("payload store: %w", err)
		}
		for _, e := range entries {
			var d [32]byte
			if n, err := hex.Decode(d[:], []byte(e.Name())); err != nil || n != 32 {
				continue
			}
			p.dropIfUnusedLocked(d)
		}
	}
	// The snapshot's index is not known here: the repair asks at the
	// state's applied index, which is past it.
	for d, length := range live {
		p.noteMissingLocked(d, length, 0)
	}
	return nil
}

// MissingBodies is nil when this member holds every body its state needs;
// else an error naming the count and one digest: a *MissingBodyError
// (a corrupt store) once every member has answered that it lacks it.
func (g *Group) MissingBodies() error {
	g.repairMu.Lock()
	lost := g.lost
	g.repairMu.Unlock()
	if lost != nil {
		return lost
	}
	for d := range g.bodies.missingNow() {
		n, _ := g.bodies.Missing()
		return fmt.Errorf("replicated queue %s: %d bodies still to fetch, body %x among them", g.Path, n, d)
	}
	return nil
}

// repairBodies fetches the missing bodies whenever there are some, until
// the node stops, backing off while fetches fail; between repairs it
// expires Commits' pins that outlived pinTTL.
func (g *Group) repairBodies() {
	defer g.node.wg.Done()
	backoff := repairBackoffMin
	expiry := time.NewTicker(pinTTL / 2)
	defer expiry.Stop()
	for {
		select {
		case <-g.node.stop:
			return
		case <-expiry.C:
			g.bodies.expirePins(time.Now().Add(-pinTTL))
			continue
		case <-g.bodies.wake:
		}
		for len(g.bodies.missingNow()) > 0 {
			if g.repairOnce() {
				backoff = repairBackoffMin
				continue
			}
			t := time.NewTimer(backoff)
			select {
			case <-g.node.stop:
				t.Stop()
				return
			case <-t.C:
			}
			backoff = min(2*backoff, repairBackoffMax)
		}
	}
}

// repairOnce tries each missing body once; true when all were fetched or
// found settled.
func (g *Group) repairOnce() bool {
	ok := true
	for d, w := range g.bodies.missingNow() {
		// The state needs d at the index it has applied (d would no
		// longer be missing if a SETTLE there had freed it), or at the
		// later log entry that named it. A body a snapshot brought is
		// asked for with no index (0: never answered settled) until an
		// entry is applied after the restore.
		index := max(w.index, g.FSM.appliedIndex())
		switch err := g.fetchNoted(d, w.length, index); {
		case errors.Is(err, errBodySettled):
			g.bodies.settledElsewhere(d)
		case err != nil:
			ok = false
		default:
			g.bodies.fetched(d)
		}
	}
	return ok
}

// fetchNoted fetches body d as fetchBody does, and keeps the outcome for
// MissingBodies: a body no member holds is logged at level ERROR, naming
// its digest, until a fetch of it succeeds; a fetch that failed otherwise
// (a member out of reach, a stream cut) is a warning, as it is retried.
func (g *Group) fetchNoted(d [32]byte, length, index uint64) error {
	err := g.fetchBody(d, length, index)
	var lost *MissingBodyError
	g.repairMu.Lock()
	switch {
	case errors.As(err, &lost):
		g.lost = lost
	case (err == nil || errors.Is(err, errBodySettled)) && g.lost != nil && g.lost.Digest == d:
		g.lost = nil
	}
	g.repairMu.Unlock()
	if err == nil || errors.Is(err, errBodySettled) {
		return err
	}
	// A leader out of reach fails every retry of the same entries.
	if ok, held := g.fetchLogGate.Allow(); ok {
		level := slog.LevelWarn
		if lost != nil {
			level = slog.LevelError
		}
		g.node.log.Log(context.Background(), level, "cluster: a body this member lacks could not be fetched", "queue", g.Path,
			"digest", hex.EncodeToString(d[:]), "err", err, "lines_held_back", held)
	}
	return err
}

// settledElsewhere ends the repair of d, which another member found
// settled: the SETTLE this member is yet to apply frees it.
func (p *Payloads) settledElsewhere(d [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgetMissingLocked(d)
}

// fetched ends the repair of d: the fetch's pin is dropped (the live
// message keeps the body; one settled meanwhile lets it go).
func (p *Payloads) fetched(d [32]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgetMissingLocked(d)
	p.unpinLocked(d)
	p.dropIfUnusedLocked(d)
}
