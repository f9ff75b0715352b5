package guarantee

// Sequencer numbers the one-way transfers one sender opens on one
// connection, per scope (PROTOCOL.md §8.3.2): each scope counts from 0 and
// goes up by exactly 1 per transfer. It is generic over the scope key; the
// caller decides what a scope is (the producer and the topic, else the path).
//
// At most maxScopes scopes are numbered. A transfer in a scope beyond them
// goes out unnumbered, which a receiver passes straight through, as it does
// a scope beyond its own table. The zero value is not usable; a Sequencer is
// not safe for concurrent use.
type Sequencer[K comparable] struct {
	next      map[K]uint64
	maxScopes int
}

// NewSequencer returns a sequencer numbering at most maxScopes scopes.
func NewSequencer[K comparable](maxScopes int) *Sequencer[K] {
	return &Sequencer[K]{next: make(map[K]uint64), maxScopes: maxScopes}
}

// Next returns the number of scope's next transfer, or false when scope is
// new and the table is full: that transfer is not numbered.
func (s *Sequencer[K]) Next(scope K) (uint64, bool) {
	n, ok := s.Peek(scope)
	if ok {
		// 2^64 transfers on one connection cannot happen; wrapping is not handled.
		s.next[scope] = n + 1
	}
	return n, ok
}

// Peek is what Next would return, drawing nothing: a sender checks the
// header a number goes into before it spends the number.
func (s *Sequencer[K]) Peek(scope K) (uint64, bool) {
	n, known := s.next[scope]
	if !known && len(s.next) >= s.maxScopes {
		return 0, false
	}
	return n, true
}

// Scopes is the number of scopes numbered so far.
func (s *Sequencer[K]) Scopes() int { return len(s.next) }
