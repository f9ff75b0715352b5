package raftlayer

import (
	"sync"
	"time"

	"github.com/weida-go/weida/core/identity"
	"github.com/weida-go/weida/core/internal/lograte"
)

// refusalLogInterval is how often a refusal of one member is logged at
// most: a member that read another cluster file redials many times a
// second, and one line per interval (with how many were held back) says
// as much as all of them.
const refusalLogInterval = 10 * time.Second

// peerGates bounds a log line per member: one per interval each. The
// members are the file's (only their keys pass the handshake), so the map
// is as small as the cluster.
type peerGates struct {
	now func() time.Time // nil: time.Now

	mu    sync.Mutex
	gates map[identity.Fingerprint]*lograte.Gate
}

// allow reports whether a line about peer may be logged now, and how many
// were held back since the last one that was.
func (p *peerGates) allow(peer identity.Fingerprint) (ok bool, held uint64) {
	p.mu.Lock()
	g := p.gates[peer]
	if g == nil {
		if p.gates == nil {
			p.gates = map[identity.Fingerprint]*lograte.Gate{}
		}
		g = &lograte.Gate{Burst: 1, Interval: refusalLogInterval, Now: p.now}
		p.gates[peer] = g
	}
	p.mu.Unlock()
	return g.Allow()
}
