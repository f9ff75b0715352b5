package weida

import (
	"math/rand/v2"
	"time"
)

// ReconnectPolicy says how a dialling endpoint redials a lost connection
// (SEMANTICS.md §8.5). The zero value is the default: exponential backoff
// from 100 ms to 30 s with jitter, never giving up.
type ReconnectPolicy struct {
	// Never drops the slot at the first loss instead of redialling.
	Never bool
	// Initial is the first delay (default 100 ms); each failure doubles it.
	Initial time.Duration
	// Max caps the delay (default 30 s).
	Max time.Duration
	// NoJitter disables the random spread of each delay (±25 %).
	NoJitter bool
	// GiveUpAfter stops after this many failed attempts (0 = never).
	GiveUpAfter int
	// GiveUpAfterDuration stops once the slot has been down this long (0 = never).
	GiveUpAfterDuration time.Duration
}

// Defaults of ReconnectPolicy.
const (
	DefaultRedialInitial = 100 * time.Millisecond
	DefaultRedialMax     = 30 * time.Second
)

// NeverReconnect is the policy that drops a slot at its first loss.
func NeverReconnect() ReconnectPolicy { return ReconnectPolicy{Never: true} }

// delay is the wait before attempt n (1-based).
func (p ReconnectPolicy) delay(n int) time.Duration {
	initial, limit := p.Initial, p.Max
	if initial <= 0 {
		initial = DefaultRedialInitial
	}
	if limit <= 0 {
		limit = DefaultRedialMax
	}
	d := initial
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	if !p.NoJitter {
		spread := int64(d) / 4
		if spread > 0 {
			d += time.Duration(rand.Int64N(2*spread) - spread)
		}
	}
	return d
}

// exhausted reports whether the policy gives up after n failed attempts
// with the slot down since downAt.
func (p ReconnectPolicy) exhausted(n int, downAt time.Time) bool {
	if p.GiveUpAfter > 0 && n >= p.GiveUpAfter {
		return true
	}
	return p.GiveUpAfterDuration > 0 && time.Since(downAt) >= p.GiveUpAfterDuration
}
