package guarantee

import "time"

// Deduplicator is the receiver's window of Bounded deduplication
// (SEMANTICS.md §4.2): it remembers the identities (scope, sequence) it let
// through and tells a repeat seen within the window. It is bounded twice, in
// time by the window and in count by maxEntries, where the oldest identity
// is forgotten first; an identity reused after its window, or after it was
// forgotten at the cap, is not a repeat.
//
// A repeat does not renew its identity: the window runs from the first
// arrival, so a stream of repeats cannot keep an identity alive. The zero
// value is not usable; a Deduplicator is not safe for concurrent use.
type Deduplicator[K comparable] struct {
	window     time.Duration
	maxEntries int
	seen       map[dedupID[K]]struct{}
	// order is a ring of the remembered identities, oldest first. Identities
	// enter in arrival order, so the oldest is also the first to expire.
	order      []dedupEntry[K]
	head, size int
}

type dedupID[K comparable] struct {
	scope K
	n     uint64
}

type dedupEntry[K comparable] struct {
	id dedupID[K]
	at time.Time
}

// dedupInitialRing is the ring's first allocation; it doubles up to the cap.
const dedupInitialRing = 64

// NewDeduplicator returns a window of length window remembering at most
// maxEntries identities (at least 1).
func NewDeduplicator[K comparable](window time.Duration, maxEntries int) *Deduplicator[K] {
	return &Deduplicator[K]{window: window, maxEntries: max(maxEntries, 1), seen: make(map[dedupID[K]]struct{})}
}

// Repeat reports whether the identity (scope, n) arrived within the window
// before now; if not, it is remembered from now on. Calls must come with
// non-decreasing now.
func (d *Deduplicator[K]) Repeat(scope K, n uint64, now time.Time) bool {
	d.expire(now)
	id := dedupID[K]{scope: scope, n: n}
	if _, ok := d.seen[id]; ok {
		return true
	}
	if d.size == d.maxEntries {
		d.forgetOldest()
	}
	d.remember(dedupEntry[K]{id: id, at: now})
	return false
}

// Len is the number of identities remembered.
func (d *Deduplicator[K]) Len() int { return d.size }

// expire forgets every identity whose window has passed at now.
func (d *Deduplicator[K]) expire(now time.Time) {
	for d.size > 0 && now.Sub(d.order[d.head].at) >= d.window {
		d.forgetOldest()
	}
}

func (d *Deduplicator[K]) forgetOldest() {
	delete(d.seen, d.order[d.head].id)
	d.order[d.head] = dedupEntry[K]{}
	d.head = (d.head + 1) % len(d.order)
	d.size--
}

// remember appends e to the ring, growing it (up to the cap) when full.
func (d *Deduplicator[K]) remember(e dedupEntry[K]) {
	if d.size == len(d.order) {
		grown := make([]dedupEntry[K], min(max(2*len(d.order), dedupInitialRing), d.maxEntries))
		for i := range d.size {
			grown[i] = d.order[(d.head+i)%len(d.order)]
		}
		d.order, d.head = grown, 0
	}
	d.order[(d.head+d.size)%len(d.order)] = e
	d.size++
	d.seen[e.id] = struct{}{}
}
