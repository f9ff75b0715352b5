package guarantee

import "math"

// Reassembler is the receiver of PerProducer(reassemble) (PROTOCOL.md
// §8.3.2): it holds a transfer whose predecessors in its scope are missing
// and lets the run go in sequence order once they arrive. It is generic over
// the scope key K and the held item T; the receiver holds an unread stream,
// not a copy, so memory is bounded by the count of held items, never by
// payload bytes.
//
// Numbers start at 0 in every scope (a sender counts from 0 per connection
// and scope), so 0 is the first number each scope waits for. What passes
// straight through, out of order and with no gap: a number below the
// scope's position, a number already held (the held one keeps its place:
// suppression is deduplication's job, never reassembly's), and anything in
// a scope beyond maxScopes, which is not tracked.
//
// At most maxHold items are held over all scopes. When one more would be
// held, the scope holding the most (on a tie, the one holding the oldest
// arrival) lets its lowest number go early, with the numbers it skipped
// reported as missed, and then whatever run follows it. The hold never
// refuses an arrival and never grows past maxHold. There is no time bound
// (spec README, Semantics 15): a hole at the end of a producer's traffic
// holds its successors until the connection ends.
//
// The zero value is not usable; a Reassembler is not safe for concurrent use.
type Reassembler[K comparable, T any] struct {
	maxHold, maxScopes int
	scopes             map[K]*reorderScope
	held               []heldItem[K, T] // every scope's held items, unordered; made at the first hold
	arrivals           uint64           // stamps held items in arrival order
	peak               int
}

// Release is one item a Reassembler lets go. Within a scope, releases come
// in the order they must be delivered.
type Release[K comparable, T any] struct {
	Scope    K
	Sequence uint64
	// Missed is how many numbers just before Sequence never arrived: 0 for
	// an item delivered in order or passed through, positive for one the
	// cap forced out.
	Missed uint64
	Item   T
}

// reorderScope is one scope's position and the count it holds.
type reorderScope struct {
	next  uint64 // the number the scope waits for
	ended bool   // 2^64-1 was released: every number is below the position
	held  int
}

// below reports whether n is below the scope's position.
func (s *reorderScope) below(n uint64) bool { return s.ended || n < s.next }

// advance moves the position past n.
func (s *reorderScope) advance(n uint64) {
	if n == math.MaxUint64 {
		s.ended = true
		return
	}
	s.next = n + 1
}

type heldItem[K comparable, T any] struct {
	key     K
	scope   *reorderScope
	n       uint64
	arrival uint64
	item    T
}

// NewReassembler returns a reassembler holding at most maxHold items over
// at most maxScopes scopes. maxHold must be at least 1.
func NewReassembler[K comparable, T any](maxHold, maxScopes int) *Reassembler[K, T] {
	return &Reassembler[K, T]{maxHold: max(maxHold, 1), maxScopes: maxScopes, scopes: make(map[K]*reorderScope)}
}

// Arrive takes item, numbered n in scope, and appends to out what may be
// delivered now, in order; the item itself may be among it, or held. It
// returns the extended out.
func (r *Reassembler[K, T]) Arrive(scope K, n uint64, item T, out []Release[K, T]) []Release[K, T] {
	s := r.scope(scope)
	switch {
	case s == nil || s.below(n) || r.find(s, n) >= 0:
		return append(out, Release[K, T]{Scope: scope, Sequence: n, Item: item})
	case n == s.next:
		out = append(out, Release[K, T]{Scope: scope, Sequence: n, Item: item})
		s.advance(n)
		return r.run(scope, s, out)
	}
	if r.held == nil {
		r.held = make([]heldItem[K, T], 0, r.maxHold+1) // one over: the arrival that forces a release
	}
	r.held = append(r.held, heldItem[K, T]{key: scope, scope: s, n: n, arrival: r.arrivals, item: item})
	r.arrivals++
	s.held++
	if len(r.held) > r.maxHold {
		out = r.forceRelease(out)
	}
	r.peak = max(r.peak, len(r.held))
	return out
}

// Held is the number of items held now, over all scopes.
func (r *Reassembler[K, T]) Held() int { return len(r.held) }

// Peak is the most items ever held at once (after a forced release).
func (r *Reassembler[K, T]) Peak() int { return r.peak }

// Scopes is the number of scopes tracked.
func (r *Reassembler[K, T]) Scopes() int { return len(r.scopes) }

// scope returns key's state, starting it if the table has room; nil means
// the scope is not tracked.
func (r *Reassembler[K, T]) scope(key K) *reorderScope {
	if s, ok := r.scopes[key]; ok {
		return s
	}
	if len(r.scopes) >= r.maxScopes {
		return nil
	}
	s := &reorderScope{}
	r.scopes[key] = s
	return s
}

// run releases the items of s that now follow in order.
func (r *Reassembler[K, T]) run(key K, s *reorderScope, out []Release[K, T]) []Release[K, T] {
	for s.held > 0 && !s.ended {
		i := r.find(s, s.next)
		if i < 0 {
			break
		}
		h := r.take(i)
		out = append(out, Release[K, T]{Scope: key, Sequence: h.n, Item: h.item})
		s.advance(h.n)
	}
	return out
}

// forceRelease lets the lowest number of the scope holding the most go,
// with its gap, and the run behind it.
func (r *Reassembler[K, T]) forceRelease(out []Release[K, T]) []Release[K, T] {
	victim := r.held[0]
	for _, h := range r.held[1:] {
		if h.scope.held > victim.scope.held || (h.scope.held == victim.scope.held && h.arrival < victim.arrival) {
			victim = h
		}
	}
	s, lowest := victim.scope, -1
	for i, h := range r.held {
		if h.scope == s && (lowest < 0 || h.n < r.held[lowest].n) {
			lowest = i
		}
	}
	h := r.take(lowest)
	// Every held number is above its scope's position, so the gap is at least 1.
	out = append(out, Release[K, T]{Scope: h.key, Sequence: h.n, Missed: h.n - s.next, Item: h.item})
	s.advance(h.n)
	return r.run(h.key, s, out)
}

// find returns the index of s's held item numbered n, or -1.
func (r *Reassembler[K, T]) find(s *reorderScope, n uint64) int {
	if s.held == 0 {
		return -1
	}
	for i, h := range r.held {
		if h.scope == s && h.n == n {
			return i
		}
	}
	return -1
}

// take removes the held item at i (the hold is unordered) and returns it.
func (r *Reassembler[K, T]) take(i int) heldItem[K, T] {
	h := r.held[i]
	last := len(r.held) - 1
	r.held[i] = r.held[last]
	r.held[last] = heldItem[K, T]{} // drop the reference to the item
	r.held = r.held[:last]
	h.scope.held--
	return h
}
