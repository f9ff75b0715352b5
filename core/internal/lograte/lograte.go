// Package lograte bounds log lines that could otherwise come once per
// message: a refused transfer, a refused admission. A Gate lets a burst
// through per interval and counts what it held back, so the next line that
// passes can say how many were left out.
package lograte

import (
	"sync"
	"time"
)

// Defaults: ten lines a second per gate.
const (
	DefaultBurst    = 10
	DefaultInterval = time.Second
)

// Gate lets at most Burst lines through per Interval. The zero value uses
// the defaults and the wall clock; a Gate must not be copied after use.
type Gate struct {
	Burst    int
	Interval time.Duration
	// Now is the clock; nil is time.Now (tests inject one).
	Now func() time.Time

	mu         sync.Mutex
	start      time.Time
	used       int
	suppressed uint64
}

// Allow reports whether a line may be written now and, when it may, how
// many lines were held back since the last one that passed.
func (g *Gate) Allow() (ok bool, suppressed uint64) {
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	burst, interval := g.Burst, g.Interval
	if burst <= 0 {
		burst = DefaultBurst
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.start.IsZero() || t.Sub(g.start) >= interval || t.Before(g.start) {
		g.start, g.used = t, 0
	}
	if g.used >= burst {
		g.suppressed++
		return false, 0
	}
	g.used++
	suppressed, g.suppressed = g.suppressed, 0
	return true, suppressed
}
