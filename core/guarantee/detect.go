package guarantee

// Detector is the receiver of PerProducer(detect) (PROTOCOL.md §8.3.2): it
// delivers everything as it arrives and reports gaps. Per scope, the first
// number seen sets the position; a later number above the next expected one
// is a gap of the numbers in between, and moves the position to it; a
// number at or below the position is no gap and moves nothing. It holds no
// transfer, only one number per scope.
//
// At most maxScopes scopes are tracked; a scope beyond them reports no gaps.
// The zero value is not usable; a Detector is not safe for concurrent use.
type Detector[K comparable] struct {
	highest   map[K]uint64 // the highest number seen per scope: the position
	maxScopes int
}

// NewDetector returns a detector tracking at most maxScopes scopes.
func NewDetector[K comparable](maxScopes int) *Detector[K] {
	return &Detector[K]{highest: make(map[K]uint64), maxScopes: maxScopes}
}

// Observe records number n in scope and returns how many numbers were
// skipped just before it: 0 unless n is above the next expected number.
func (d *Detector[K]) Observe(scope K, n uint64) (missed uint64) {
	highest, known := d.highest[scope]
	switch {
	case !known && len(d.highest) >= d.maxScopes:
		return 0
	case !known:
		d.highest[scope] = n
		return 0
	case n <= highest:
		return 0
	}
	// Kept as the highest number rather than the next expected one, so a
	// number of 2^64-1 needs no overflow handling.
	d.highest[scope] = n
	return n - highest - 1
}

// Scopes is the number of scopes tracked.
func (d *Detector[K]) Scopes() int { return len(d.highest) }
